// Test support: a minimal OTLP/HTTP traces receiver on 127.0.0.1 (POST /v1/traces, JSON
// encoding as the OTLP specification defines it: hex ids, int64 as strings or numbers), and a
// decoder of what arrived into flat spans.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

export interface OtlpAnyValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
}

interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
  attributes?: OtlpKeyValue[];
  status?: { code?: number; message?: string };
}

export interface OtlpTracesRequest {
  resourceSpans: { resource?: { attributes?: OtlpKeyValue[] }; scopeSpans: { scope?: { name: string }; spans: OtlpSpan[] }[] }[];
}

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly startMs: number;
  readonly endMs: number;
  readonly attributes: Record<string, unknown>;
  readonly status: { code: number; message: string | undefined };
  readonly resource: Record<string, unknown>;
  readonly scope: string | undefined;
}

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: OtlpTracesRequest;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly requests: Received[];
  /** Answer the next requests with this status (e.g. 503) instead of 200. */
  failWith(status: number | undefined): void;
  close(): Promise<void>;
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: Received[] = [];
  let failure: number | undefined;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      if (failure !== undefined) {
        response.writeHead(failure, { "content-type": "application/json" }).end(JSON.stringify({ code: 14, message: "unavailable" }));
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as OtlpTracesRequest;
      requests.push({ method: request.method, path: request.url, headers: request.headers, body });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    requests,
    failWith(status) {
      failure = status;
    },
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

export function anyValueOf(value: OtlpAnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(anyValueOf);
  return undefined;
}

function attributesOf(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, anyValueOf(value)]));
}

/** Every span of every request, flattened. */
export function receivedSpans(requests: readonly Received[]): ReceivedSpan[] {
  return requests.flatMap(({ body }) =>
    body.resourceSpans.flatMap((resourceSpans) =>
      resourceSpans.scopeSpans.flatMap((scopeSpans) =>
        scopeSpans.spans.map((span) => ({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId === "" ? undefined : span.parentSpanId,
          name: span.name,
          kind: span.kind,
          startMs: Number(BigInt(span.startTimeUnixNano) / 1_000_000n),
          endMs: Number(BigInt(span.endTimeUnixNano) / 1_000_000n),
          attributes: attributesOf(span.attributes),
          status: { code: span.status?.code ?? 0, message: span.status?.message },
          resource: attributesOf(resourceSpans.resource?.attributes),
          scope: scopeSpans.scope?.name,
        })),
      ),
    ),
  );
}
