// timestamp: stamps every outgoing message with the client's time, in the HTTP date format.

export class TimestampExtension {
  /** @param {any} message */
  outgoing(message) {
    message.timestamp = new Date().toUTCString();
    return message;
  }
}
