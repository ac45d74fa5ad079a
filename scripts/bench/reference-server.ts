/**
 * The baseline: a bare node:http server answering fixed bytes per path (the same JSON our API answers),
 * with no routing framework, no authentication and no database.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:http";

const [responsesFile, port] = [process.argv[2]!, Number(process.argv[3])];
const responses = new Map(
  Object.entries(JSON.parse(readFileSync(responsesFile, "utf8")) as Record<string, string>).map(([path, body]) => [
    path,
    Buffer.from(body),
  ]),
);
createServer((request, response) => {
  const body = responses.get((request.url ?? "/").split("?")[0]!);
  if (!body) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { "content-type": "application/json", "content-length": body.length });
  response.end(body);
}).listen(port, "127.0.0.1");
