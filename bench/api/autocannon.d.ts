// The part of autocannon's programmatic API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    readonly average: number;
    readonly p50: number;
    readonly p99: number;
  }
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    requests?: { method?: string; path?: string; setupRequest?: (req: { path?: string; headers?: Record<string, string> }) => unknown }[];
  }
  interface Result {
    readonly requests: Histogram;
    readonly latency: Histogram;
    readonly errors: number;
    readonly non2xx: number;
  }
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
