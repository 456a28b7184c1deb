// A tool-calling RAG request through the AI SDK's generateText with its mock model
// (ai/test) and telemetry on; the spans, exported by the OpenTelemetry JS SDK, are written
// to standard output as OTLP/JSON by @opentelemetry/otlp-transformer.
import { generateText, tool, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";

const PASSAGES = [
  { id: "warranty-2", text: "Every product carries a warranty of 24 months from delivery." },
  { id: "returns-1", text: "Returns are free within 30 days of delivery." },
];
const ANSWER = "The warranty lasts 24 months [warranty-2]. Returns are free within 30 days [returns-1].";
const usage = {
  inputTokens: { total: 50, noCache: 50, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 20, text: 20, reasoning: 0 },
};
let step = 0;
const model = new MockLanguageModelV3({
  provider: "mock-provider",
  modelId: "mock-model-id",
  doGenerate: async () => {
    step += 1;
    if (step === 1) {
      return {
        content: [{ type: "tool-call", toolCallId: "call-1", toolName: "searchDocs", input: JSON.stringify({ query: "warranty and returns" }) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    }
    return { content: [{ type: "text", text: ANSWER }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
  },
});

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ "service.name": "next-shop" }),
  spanProcessors: [new SimpleSpanProcessor(exporter)],
});
const tracer = provider.getTracer("ai");

await generateText({
  model,
  system: "Answer from the passages searchDocs returns; cite each by its id, as [id].",
  prompt: "How long is the warranty, and are returns free?",
  tools: {
    searchDocs: tool({
      description: "Search the shop's documents",
      inputSchema: z.object({ query: z.string() }),
      execute: async () => PASSAGES,
    }),
  },
  stopWhen: stepCountIs(3),
  experimental_telemetry: { isEnabled: true, tracer, functionId: "shop-answer" },
});
await provider.forceFlush();
process.stdout.write(Buffer.from(JsonTraceSerializer.serializeRequest(exporter.getFinishedSpans())));
