// Images and files in a run's input, end to end through `start`: admitted against the model's
// input modalities and stored once before anything is journaled; events and the hashed request
// hold artifact references; the provider gets the bytes; a resume in a new harness reads them
// back from the store.
import { createMemoryArtifactStore, createMemoryJournal } from "@yoke/journal";
import { YokeError, sequentialIdSource, steppingClock, type JournalV1, type ModelRequest } from "@yoke/protocol";
import { createScriptedModel, failWith, say } from "@yoke/testkit";
import { describe, expect, it } from "vitest";
import { createHarness } from "./harness.js";

/** A PNG's signature and IHDR chunk for `width` x `height`, then some bytes. */
function png(width: number, height: number): Uint8Array {
  const u32 = (value: number) => [(value >>> 24) & 255, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
  const signature = Buffer.from("89504e470d0a1a0a", "hex");
  return Uint8Array.from([...signature, ...u32(13), ...Buffer.from("IHDR"), ...u32(width), ...u32(height), 8, 6, 0, 0, 0, ...new Array(64).fill(7)]);
}

const tenantId = "tenant_media";
const seeing = { inputModalities: ["text", "image"] as const };

function harnessOver(
  journal: JournalV1,
  artifacts: ReturnType<typeof createMemoryArtifactStore> | undefined,
  steps = [say("A red square.")],
  modalities = seeing,
) {
  const model = createScriptedModel(steps, { capabilities: { inputModalities: [...modalities.inputModalities] } });
  const harness = createHarness({
    journal,
    provider: model,
    tenantId,
    ...(artifacts === undefined ? {} : { artifacts }),
    clock: steppingClock(Date.UTC(2026, 0, 1), 1),
    ids: sequentialIdSource(),
  });
  return { model, harness };
}

async function eventsOf(journal: JournalV1, runId: string) {
  const events = [];
  for await (const event of journal.read({ tenantId, runId })) events.push(event);
  return events;
}

const userParts = (request: ModelRequest) => request.messages.filter((message) => message.role === "user").flatMap((message) => message.content);

describe("images in a run's input", () => {
  it("stores the bytes once, journals a reference, and gives the provider the bytes", async () => {
    const journal = createMemoryJournal();
    const artifacts = createMemoryArtifactStore();
    const { model, harness } = harnessOver(journal, artifacts);
    const image = png(64, 32);
    const result = await harness.start([
      {
        role: "user",
        content: [
          { type: "text", text: "What is in this photo?" },
          { type: "image", mediaType: "image/png", source: { type: "bytes", data: image } },
        ],
      },
    ]);
    expect(result.outcome?.status).toBe("completed");

    const events = await eventsOf(journal, result.runId);
    const started = events.find((event) => event.type === "run.started")!;
    expect((started.data as { task: string }).task).toBe("What is in this photo?");
    const added = events
      .filter((event) => event.type === "input.added")
      .map((event) => event.data as { source: string; content: { type: string; source?: { type: string } }[] });
    expect(added).toHaveLength(1);
    expect(added[0]!.source).toBe("user");
    expect(added[0]!.content.map((part) => [part.type, part.source?.type])).toEqual([["image", "artifact"]]);
    // No event holds the bytes.
    const base64 = Buffer.from(image).toString("base64");
    expect(JSON.stringify(events).includes(base64)).toBe(false);

    // The provider was given the bytes, in order after the text.
    const sent = userParts(model.calls[0]!);
    expect(sent.map((part) => part.type)).toEqual(["text", "image"]);
    const sentImage = sent[1]!;
    expect(sentImage.type === "image" && sentImage.source).toEqual({ type: "base64", data: base64 });
  });

  it("a resume in a new harness reads the image back from the store for its call", async () => {
    const journal = createMemoryJournal();
    const artifacts = createMemoryArtifactStore();
    // The first process's call fails for good: the run stays open, its request journaled.
    const first = harnessOver(journal, artifacts, [failWith(new YokeError("PROVIDER_UNAVAILABLE", "down", { retryable: false }))] as never);
    const image = png(8, 8);
    const input = [
      {
        role: "user" as const,
        content: [
          { type: "text" as const, text: "Look." },
          { type: "image" as const, mediaType: "image/png", source: { type: "bytes" as const, data: image } },
        ],
      },
    ];
    await first.harness.start(input, { runId: "run_resumed" }).catch(() => undefined);
    expect(first.model.calls).toHaveLength(1);

    const second = harnessOver(journal, artifacts, [say("A tiny square.")]);
    const result = await second.harness.resume("run_resumed");
    expect(result.outcome?.status).toBe("completed");
    const sent = userParts(second.model.calls[0]!).find((part) => part.type === "image");
    expect(sent?.type === "image" && sent.source).toEqual({ type: "base64", data: Buffer.from(image).toString("base64") });
    // What was requested of both is the same journaled request: the reference, hashed.
    expect(userParts(second.model.calls[0]!).map((part) => part.type)).toEqual(userParts(first.model.calls[0]!).map((part) => part.type));
  });

  it("a model that does not take images refuses the input before anything is journaled (PROVIDER_ADMISSION_REJECTED)", async () => {
    const journal = createMemoryJournal();
    const { model, harness } = harnessOver(journal, createMemoryArtifactStore(), [say("no")], {
      inputModalities: ["text"] as unknown as typeof seeing.inputModalities,
    });
    const error = await harness
      .start([{ role: "user", content: [{ type: "image", mediaType: "image/png", source: { type: "bytes", data: png(4, 4) } }] }], { runId: "run_refused" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(YokeError);
    expect((error as YokeError).code).toBe("PROVIDER_ADMISSION_REJECTED");
    expect(await journal.head({ tenantId, runId: "run_refused" })).toBeNull();
    expect(model.calls).toHaveLength(0);
  });

  it("bytes with no artifact store are CONFIG_INVALID naming the option; a URL needs no store", async () => {
    const journal = createMemoryJournal();
    const { harness } = harnessOver(journal, undefined);
    const error = await harness
      .start([{ role: "user", content: [{ type: "image", mediaType: "image/png", source: { type: "bytes", data: png(4, 4) } }] }], { runId: "run_nostore" })
      .catch((caught: unknown) => caught);
    expect((error as YokeError).code).toBe("CONFIG_INVALID");
    expect((error as YokeError).details).toMatchObject({ option: "artifacts" });
    expect(await journal.head({ tenantId, runId: "run_nostore" })).toBeNull();

    const { model, harness: byUrl } = harnessOver(createMemoryJournal(), undefined);
    const result = await byUrl.start([
      {
        role: "user",
        content: [
          { type: "text", text: "Describe it." },
          { type: "image", mediaType: "image/png", source: { type: "url", url: "https://example.com/a.png" } },
        ],
      },
    ]);
    expect(result.outcome?.status).toBe("completed");
    expect(userParts(model.calls[0]!).at(-1)).toMatchObject({ type: "image", source: { type: "url", url: "https://example.com/a.png" } });
  });

  it("bytes that are not what the part claims are USER_MEDIA_INVALID, nothing journaled", async () => {
    const journal = createMemoryJournal();
    const { harness } = harnessOver(journal, createMemoryArtifactStore());
    const error = await harness
      .start(
        [{ role: "user", content: [{ type: "image", mediaType: "image/png", source: { type: "bytes", data: Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]) } }] }],
        {
          runId: "run_badbytes",
        },
      )
      .catch((caught: unknown) => caught);
    expect((error as YokeError).code).toBe("USER_MEDIA_INVALID");
    expect(await journal.head({ tenantId, runId: "run_badbytes" })).toBeNull();
  });

  it.each([
    ["no media type", { type: "image", source: { type: "url", url: "https://example.com/a.png" } }, "input[0].content[0].mediaType"],
    ["an unknown source", { type: "image", mediaType: "image/png", source: { type: "path", path: "/etc/passwd" } }, "input[0].content[0].source"],
    ["an unknown part type", { type: "audio", mediaType: "audio/wav", source: { type: "url", url: "https://example.com/a.wav" } }, "input[0].content[0].type"],
  ])("a part with %s is CONFIG_INVALID naming it", async (_name, part, option) => {
    const { harness } = harnessOver(createMemoryJournal(), createMemoryArtifactStore());
    const error = await harness.start([{ role: "user", content: [part as never] }]).catch((caught: unknown) => caught);
    expect((error as YokeError).code).toBe("CONFIG_INVALID");
    expect((error as YokeError).details).toMatchObject({ option });
  });
});
