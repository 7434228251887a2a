// The package's entry point.

export { BayeuxClient, Status, Subscription, ListenerHandle, backoffDelay } from './client.js';
export { CallbackContext } from './dispatcher.js';
export { TransportError } from './transports/transport.js';
export { AckExtension } from './extensions/ack.js';
export { TimeSyncExtension } from './extensions/timesync.js';
export { TimestampExtension } from './extensions/timestamp.js';
export { ReloadExtension } from './extensions/reload.js';
export { BinaryExtension } from './extensions/binary.js';
export { RecoveryExtension } from './extensions/recovery.js';
export { z85Encode, z85Decode } from './z85.js';
export { isValidChannel, channelMatches } from './channels.js';
