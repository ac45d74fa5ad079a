import { Queue, type ConnectionOptions } from "bullmq";
import { getEnv } from "~/env.server";
import { createRedis } from "~/redis.server";
import { HEALTH_QUEUE } from "./definitions";

/** BullMQ keys live under the configured prefix, so tests and several apps can share one Redis. */
export function queuePrefix(): string {
  return `${getEnv().REDIS_PREFIX}:bull`;
}

export function createQueue(name: string, connection: ConnectionOptions = createRedis("request")): Queue {
  return new Queue(name, { connection, prefix: queuePrefix() });
}

export function createHealthQueue(connection?: ConnectionOptions): Queue {
  return createQueue(HEALTH_QUEUE, connection);
}
