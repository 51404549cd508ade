/**
 * The implementation engine configuration and the API use.
 */
import { basicImplementationEngine, type ImplementationEngine } from './implementation-engine.ts';

export const implementationEngine: ImplementationEngine = basicImplementationEngine;
