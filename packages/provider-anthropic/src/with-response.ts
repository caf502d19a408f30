/**
 * What an SDK method returns, typed structurally: a promise of the parsed result which, on
 * the official client, also offers `.withResponse()` with the raw HTTP response.
 */
export type SdkCall = PromiseLike<unknown> & {
  withResponse?(): PromiseLike<{ data: unknown; response?: { headers: { get(name: string): string | null } }; request_id?: string | null }>;
};

/**
 * Awaits an SDK call and keeps its request id: from `.withResponse()` when the client has it
 * (the SDK's `request_id`, else the raw response's header), undefined for a client without it.
 */
export async function callWithResponse(call: SdkCall, header: string): Promise<{ result: unknown; requestId: string | undefined }> {
  if (typeof call.withResponse !== "function") return { result: await call, requestId: undefined };
  const { data, response, request_id } = await call.withResponse();
  return { result: data, requestId: request_id ?? response?.headers.get(header) ?? undefined };
}
