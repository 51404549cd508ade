/**
 * The implementation engine configuration uses (see src/domain/implementation-engine.ts).
 */
import { basicImplementationEngine, type ImplementationEngine } from '../domain/implementation-engine.ts';

export const implementationEngine: ImplementationEngine = basicImplementationEngine;
