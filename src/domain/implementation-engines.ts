/**
 * The implementation engine configuration and the API use: the X12 engine's model.
 */
import type { ImplementationEngine } from './implementation-engine.ts';
import { x12ImplementationEngine } from './x12-implementation-engine.ts';

export const implementationEngine: ImplementationEngine = x12ImplementationEngine;
