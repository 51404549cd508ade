/**
 * Classification of failures for the consumer runner: a retriable failure (a store or broker
 * briefly unavailable) is tried again with backoff; anything else goes to the dead-letter
 * topic at once, because repeating it cannot change the outcome. The tables are in
 * ../transient.ts, with those of every other driver and transport.
 */
import { isTransient } from '../transient.ts';

/** True when trying the same work again may succeed. */
export function isRetriable(err: unknown): boolean {
  return isTransient(err);
}
