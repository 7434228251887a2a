// Compiled by `tsc --noEmit` in `npm run build`: the declarations must accept how the guide uses the API, and
// refuse obvious mistakes (the @ts-expect-error lines).

import {
  AckExtension, BayeuxClient, BinaryExtension, ReloadExtension, Status, TimeSyncExtension,
  type Message, type Reply, type StatusName, type Subscription,
} from 'bayeux-js-client';

async function guide(): Promise<void> {
  const client = new BayeuxClient({ url: 'https://example.com/bayeux', transports: ['websocket', 'long-polling'] });
  client.registerExtension('ack', new AckExtension());
  client.registerExtension('reload', new ReloadExtension());
  client.registerExtension('binary', new BinaryExtension());
  const timesync = new TimeSyncExtension();
  client.registerExtension('timesync', timesync);
  const offset: number = timesync.getTimeOffset();

  client.addListener('/meta/connect', (message: Message) => console.log(message.successful));
  const stop = client.addStatusListener((status: StatusName, previous) => console.log(previous, '->', status));
  const reply: Reply = await client.handshake({ ext: { auth: { token: 't' } } });
  if (!reply.successful) {
    console.log(reply.error, reply.failure?.reason);
  }
  const subscription: Subscription = client.subscribe('/chat/*', (message) => console.log(message.data));
  const subscribed: Reply = await subscription.ready;
  await client.publish('/chat/lobby', { text: 'hi' }, (r) => console.log(r.successful));
  const answer = await client.remoteCall('chat/members', { room: 'lobby' }, 5000);
  console.log(answer.data, subscribed.successful, offset);
  client.batch(() => {
    client.publish('/a', 1);
    client.publish('/b', 2);
  });
  await client.publishBinary('/files', new Uint8Array([1, 2, 3]), true, { name: 'x' });
  await subscription.unsubscribe();
  if (client.getStatus() === Status.CONNECTED) {
    await client.disconnect();
  }
  stop();

  // @ts-expect-error the listener is required
  client.subscribe('/chat/*');
  // @ts-expect-error not a transport
  new BayeuxClient({ transports: ['carrier-pigeon'] });
  // @ts-expect-error not an option
  new BayeuxClient({ urll: 'x' });
}

void guide;
