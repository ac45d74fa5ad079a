/**
 * What a customers/redact leaves of an outbox event that named the customer, one of their lists or share
 * tokens (docs/decisions/028-redacted-events.md): the row stays (its id, type and time, which the delivery
 * log refers to) and its data becomes this marker. Such an event is never sent again: the relay fans it out
 * to no endpoint, a queued delivery of it ends unsent, and a redelivery is answered 410 `event-redacted`. So
 * every event a receiver gets matches its documented schema, and none is sent without its customer.
 */
export const REDACTED_EVENT_DATA = '{"redacted":true}';

export function isRedactedEventData(data: string): boolean {
  return data === REDACTED_EVENT_DATA;
}
