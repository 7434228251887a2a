// Compiled by `tsc --noEmit` in `npm run build`, with the sources (src/, checked as JavaScript with their JSDoc)
// next to the hand-written declarations (types/index.d.ts): it does not compile when the two export different
// names, or when a class has a public member on one side that the other lacks. Members marked `@private` in the
// sources are internals and do not count; methods must also take the same numbers of arguments. An error names
// what differs, e.g. "Type 'string' is not assignable to type '{ notDeclared: never; notInSources: "publish"; ...'".

import * as source from '../../src/index.js';
import type * as declared from 'bayeux-js-client';

/** How many arguments a method takes (a union when some are optional); fields are not methods. */
type Arity<F> = F extends (...args: infer A) => unknown ? A['length'] : 'not a method';

/** The members of both whose numbers of arguments differ. */
type ArityMismatch<S, D> = {
  [K in keyof S & keyof D]: [Arity<S[K]>] extends [Arity<D[K]>] ? ([Arity<D[K]>] extends [Arity<S[K]>] ? never : K) : K;
}[keyof S & keyof D];

/**
 * 'ok' when S and D have the same keys, and their methods take the same numbers of arguments; otherwise the names
 * that one has and the other lacks, and the methods whose arguments differ.
 */
type SameKeys<S, D> = [Exclude<keyof S, keyof D> | Exclude<keyof D, keyof S> | ArityMismatch<S, D>] extends [never]
  ? 'ok'
  : {
    notDeclared: Exclude<keyof S, keyof D>;
    notInSources: Exclude<keyof D, keyof S>;
    otherArguments: ArityMismatch<S, D>;
  };

type Module = typeof import('bayeux-js-client');

export const exportsMatch: SameKeys<typeof source, Module> = 'ok';
export const statusMatches: SameKeys<typeof source.Status, typeof declared.Status> = 'ok';

export const clientMatches: SameKeys<source.BayeuxClient, declared.BayeuxClient> = 'ok';
export const subscriptionMatches: SameKeys<source.Subscription, declared.Subscription> = 'ok';
export const listenerHandleMatches: SameKeys<source.ListenerHandle, declared.ListenerHandle> = 'ok';
export const callbackContextMatches: SameKeys<source.CallbackContext, declared.CallbackContext> = 'ok';
export const transportErrorMatches: SameKeys<source.TransportError, declared.TransportError> = 'ok';
export const ackMatches: SameKeys<source.AckExtension, declared.AckExtension> = 'ok';
export const timeSyncMatches: SameKeys<source.TimeSyncExtension, declared.TimeSyncExtension> = 'ok';
export const timestampMatches: SameKeys<source.TimestampExtension, declared.TimestampExtension> = 'ok';
export const reloadMatches: SameKeys<source.ReloadExtension, declared.ReloadExtension> = 'ok';
export const binaryMatches: SameKeys<source.BinaryExtension, declared.BinaryExtension> = 'ok';
