/** The Hono environment of the whole HTTP app: what every request carries (app/api/http-app.server.ts). */
export interface HttpAppEnv {
  Variables: { requestId: string };
}
