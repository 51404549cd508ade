/**
 * The implementation engine configuration uses (the same one the API renders with).
 */
export { implementationEngine } from '../domain/implementation-engines.ts';
