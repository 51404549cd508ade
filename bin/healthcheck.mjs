#!/usr/bin/env node
// The container image's HEALTHCHECK (Dockerfile). A container whose roles include the API
// (TDX_ROLE all, or a list naming api) is healthy while GET /healthz on its port answers 200
// within 3 s. The other roles serve no HTTP: for them the check passes while the process runs,
// and their liveness is the container's own (it exits when the service fails; restart policy).
/* global fetch, AbortSignal */
const role = process.env['TDX_ROLE'] || 'all';
const servesApi = role.split(',').some((r) => r.trim() === 'api' || r.trim() === 'all');
if (!servesApi) process.exit(0);
const port = process.env['TDX_API_PORT'] || '8080';
try {
  const res = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(3000) });
  process.exit(res.status === 200 ? 0 : 1);
} catch {
  process.exit(1);
}
