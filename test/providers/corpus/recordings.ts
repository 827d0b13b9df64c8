// What real servers and gateways sent, recorded by public test suites, and what nex must conclude
// from each: the calls whole with their exact arguments (or cut), the answer, the reasoning.
// Every body in this folder is replayed byte for byte by the stub endpoint into the real `nex run`
// (test/faults/scenarios-servers.ts). Sources and how each body was framed: README.md.

/** One recorded response and the conclusion nex must reach. */
export interface Recording {
  /** The body file in this folder (`.sse`: a stream; `.json`: a whole answer). */
  file: string;
  service: string;
  wire: "openai" | "anthropic";
  /** Repository, commit and path of the recording. */
  source: string;
  /** Calls nex must find whole, in order, with exactly these arguments. */
  calls?: { name: string; args: Record<string, unknown> }[];
  /** The recorded calls must be refused as cut (`stream_dropped`, ...), nothing run. */
  cut?: string;
  /** The answer shown: exact text, or a pattern it must match. */
  text?: string | RegExp;
  /** The reasoning, shown apart: exact text, or a pattern; `""` when none may be shown. */
  reasoning?: string | RegExp;
  /** The run must end with an error saying this. */
  error?: RegExp;
  /** Bodies for the requests that follow, in order (a paused turn continued). */
  next?: string[];
  /** Files the workspace holds (a recorded call reads one). */
  files?: Record<string, string>;
}

const VERCEL = "vercel/ai@ed857f50f112e23930b0c2dd8d532cc8bebbc911";
const PYDANTIC = "pydantic/pydantic-ai@4fda38988f2939fa6ea9cdefcf120693e10ef491";
const TGI = "huggingface/text-generation-inference@19bb2248b64fe3c87962ca0fb3ab851b9a81ca90";
const OPENAI_PY = "openai/openai-python@b22d0a6fc18998a9dad455f923e754493cea1eca";
const LLAMA_CPP = "ggml-org/llama.cpp@25aff712d9bffbae09147df83c9dc8e032d06f71";
const LMSTUDIO = "imhansai/koog-learn@2f460d0b11d8aa71458c59c64d8bd67d34ed37e2";
const weatherSF = { name: "weather", args: { location: "San Francisco" } };

export const recordings: Recording[] = [
  // ------------------------------------------------------------ OpenAI-compatible, streamed
  {
    file: "tgi-tool-call-no-finish-reason.sse",
    service: "Text Generation Inference 3.1",
    wire: "openai",
    source: `${TGI} integration-tests/models/__snapshots__/test_tools_llama/test_flash_llama_grammar_tools_choice_stream.json`,
    calls: [
      { name: "get_current_weather", args: { location: "Brooklyn, NY", format: "fahrenheit" } },
    ],
  },
  {
    file: "deepseek-tool-call.sse",
    service: "DeepSeek (deepseek-reasoner)",
    wire: "openai",
    source: `${VERCEL} packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.chunks.txt`,
    calls: [weatherSF],
    reasoning: /^The user is asking for the weather in San Francisco/,
  },
  {
    file: "deepseek-reasoning.sse",
    service: "DeepSeek (deepseek-reasoner)",
    wire: "openai",
    source: `${VERCEL} packages/deepseek/src/chat/__fixtures__/deepseek-reasoning.chunks.txt`,
    text: 'The word "strawberry" contains three "r"s.',
    reasoning: /^We need to count the number of the letter "r"/,
  },
  {
    file: "deepseek-reasoner-stream.sse",
    service: "DeepSeek (deepseek-reasoner)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_deepseek/test_deepseek_model_thinking_stream.yaml`,
    text: "Hello there! 😊 How can I help you today?",
    reasoning: /^Hmm, the user just said "Hello"/,
  },
  {
    file: "deepseek-text.sse",
    service: "DeepSeek (deepseek-chat), cut by its own 400-token cap",
    wire: "openai",
    source: `${VERCEL} packages/deepseek/src/chat/__fixtures__/deepseek-text.chunks.txt`,
    error: /cut off by the endpoint's own length limit after 400 tokens/,
  },
  {
    file: "groq-reasoning.sse",
    service: "Groq (qwen3-32b, `reasoning` deltas)",
    wire: "openai",
    source: `${VERCEL} packages/groq/src/__fixtures__/groq-reasoning.chunks.txt`,
    text: /^The word \*\*"strawberry"\*\*/,
    reasoning: /^Okay, let me try to figure out how many times/,
  },
  {
    file: "groq-tool-call.sse",
    service: "Groq",
    wire: "openai",
    source: `${VERCEL} packages/groq/src/__fixtures__/groq-tool-call.chunks.txt`,
    calls: [{ name: "weather", args: {} }],
  },
  {
    file: "groq-r1-distill-think.sse",
    service: "Groq (deepseek-r1-distill, <think> in content)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_groq/test_groq_model_thinking_part_iter.yaml (interaction 0)`,
    text: /^(?![\s\S]*<\/?think>)[\s\S]*alfajor/i,
    reasoning: /^\s*Okay, so I want to make Uruguayan alfajores/,
  },
  {
    file: "huggingface-router-think.sse",
    service: "Hugging Face router (DeepSeek-R1, <think> in content)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_huggingface/test_hf_model_thinking_part_iter.yaml`,
    text: /^(?![\s\S]*<\/?think>)[\s\S]+/,
    reasoning: /^\s*Okay, the user asked "How do I cross the street\?"/,
  },
  {
    file: "mistral-reasoning.sse",
    service: "Mistral (magistral, content as parts)",
    wire: "openai",
    source: `${VERCEL} packages/mistral/src/__fixtures__/mistral-reasoning.chunks.txt`,
    text: "2 + 2 = 4",
    reasoning: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
  },
  {
    file: "mistral-text.sse",
    service: "Mistral",
    wire: "openai",
    source: `${VERCEL} packages/mistral/src/__fixtures__/mistral-text.chunks.txt`,
    text: "Hello, world! This is a test response.",
    reasoning: "",
  },
  {
    file: "mistral-tool-call.sse",
    service: "Mistral",
    wire: "openai",
    source: `${VERCEL} packages/mistral/src/__fixtures__/mistral-tool-call.chunks.txt`,
    calls: [weatherSF],
  },
  {
    file: "mistral-incremental-tool-call.sse",
    service: "Mistral",
    wire: "openai",
    source: `${VERCEL} packages/mistral/src/__fixtures__/mistral-incremental-tool-call.chunks.txt`,
    calls: [{ name: "webSearchTool", args: { query: "current Berlin weather" } }],
  },
  {
    file: "alibaba-reasoning.sse",
    service: "Alibaba Cloud (Qwen)",
    wire: "openai",
    source: `${VERCEL} packages/alibaba/src/__fixtures__/alibaba-reasoning.chunks.txt`,
    text: /^The word \*\*"strawberry"\*\* contains \*\*3\*\*/,
    reasoning: /^We are asked: "How many 'r's are in the word 'strawberry/,
  },
  {
    file: "alibaba-tool-call.sse",
    service: "Alibaba Cloud (Qwen)",
    wire: "openai",
    source: `${VERCEL} packages/alibaba/src/__fixtures__/alibaba-tool-call.chunks.txt`,
    calls: [weatherSF],
  },
  {
    file: "moonshotai-stream.sse",
    service: "Moonshot (Kimi)",
    wire: "openai",
    source: `${VERCEL} packages/moonshotai/src/__fixtures__/moonshotai-stream.chunks.txt`,
    text: "Hello!",
    reasoning: "Thinking aloud. ",
  },
  {
    file: "xai-text.sse",
    service: "xAI",
    wire: "openai",
    source: `${VERCEL} packages/xai/src/__fixtures__/xai-text.chunks.txt`,
    text: "Hello",
    reasoning: "First, the user said",
  },
  {
    file: "xai-tool-call.sse",
    service: "xAI",
    wire: "openai",
    source: `${VERCEL} packages/xai/src/__fixtures__/xai-tool-call.chunks.txt`,
    calls: [weatherSF],
    reasoning: "First, the user is",
  },
  {
    file: "azure-model-router.sse",
    service: "Azure OpenAI (model router)",
    wire: "openai",
    source: `${VERCEL} packages/openai/src/chat/__fixtures__/azure-model-router.1.chunks.txt`,
    text: "Capital of Denmark.",
  },
  {
    file: "openai-compatible-tool-call.sse",
    service: "Anthropic through an OpenAI-compatible gateway (call at index 1, no usage)",
    wire: "openai",
    source: `${VERCEL} packages/openai-compatible/src/chat/__fixtures__/anthropic-fallback-tool-call.sse`,
    files: { "a.txt": "alpha\n" },
    // The file ends `data: [DONE]\n` without the blank line that dispatches an event: by the SSE
    // rules nex reads strictly, the terminator never arrived (a stream cut one byte earlier looks
    // the same), so the call is refused as cut and the model is told to send it again.
    cut: "stream_dropped",
  },
  {
    file: "openrouter-claude-reasoning.sse",
    service: "OpenRouter (Claude; `reasoning` beside `reasoning_details`)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_openrouter/test_openrouter_streaming_reasoning.yaml`,
    text: "2 + 2 = 4",
    reasoning: "This is a simple arithmetic question. 2+2 equals 4.",
  },
  {
    file: "openrouter-o3-encrypted-reasoning.sse",
    service: "OpenRouter (o3; encrypted reasoning only)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_openrouter/test_openrouter_stream_with_reasoning.yaml`,
    text: /^I’m ChatGPT, a large-language-model assistant created by OpenAI/,
    reasoning: "",
  },
  {
    file: "openrouter-stream-error.sse",
    service: "OpenRouter (MiniMax): reasoning, `length`, then an error inside the 200 stream",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_openrouter/test_openrouter_stream_error.yaml`,
    reasoning: /^We need to respond to a greeting/,
    error: /used up its output on reasoning before writing any answer/,
  },
  // ------------------------------------------------------------ OpenAI-compatible, whole JSON
  {
    file: "deepseek-reasoning.json",
    service: "DeepSeek (deepseek-reasoner)",
    wire: "openai",
    source: `${VERCEL} packages/deepseek/src/chat/__fixtures__/deepseek-reasoning.json`,
    text: /^The word "strawberry" contains three instances of the letter "r"/,
    reasoning: /^We are asked: "How many 'r's are in the word 'strawberry/,
  },
  {
    file: "deepseek-tool-call.json",
    service: "DeepSeek (deepseek-reasoner)",
    wire: "openai",
    source: `${VERCEL} packages/deepseek/src/chat/__fixtures__/deepseek-tool-call.json`,
    calls: [weatherSF],
    reasoning: /^The user is asking for the weather in San Francisco/,
  },
  {
    file: "groq-tool-call.json",
    service: "Groq",
    wire: "openai",
    source: `${VERCEL} packages/groq/src/__fixtures__/groq-tool-call.json`,
    calls: [{ name: "weather", args: {} }],
  },
  {
    file: "mistral-reasoning.json",
    service: "Mistral (magistral, content as parts)",
    wire: "openai",
    source: `${VERCEL} packages/mistral/src/__fixtures__/mistral-reasoning.json`,
    text: "2 + 2 = 4",
    reasoning: "The user is asking for 2+2. This is basic arithmetic. 2+2=4.",
  },
  {
    file: "moonshotai-reasoning.json",
    service: "Moonshot (Kimi)",
    wire: "openai",
    source: `${VERCEL} packages/moonshotai/src/__fixtures__/moonshotai-reasoning.json`,
    text: "There are three.",
    reasoning: "Let me count the letters carefully.",
  },
  {
    file: "moonshotai-tool-call.json",
    service: "Moonshot (Kimi)",
    wire: "openai",
    source: `${VERCEL} packages/moonshotai/src/__fixtures__/moonshotai-tool-call.json`,
    calls: [{ name: "get_weather", args: { city: "Paris" } }],
  },
  {
    file: "openrouter-tool-calling.json",
    service: "OpenRouter",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_openrouter/test_openrouter_tool_calling.yaml (parsed_body)`,
    calls: [{ name: "divide", args: { numerator: 123, denominator: 456, on_inf: "infinity" } }],
  },
  {
    file: "openrouter-with-reasoning.json",
    service: "OpenRouter",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_openrouter/test_openrouter_with_reasoning.yaml (parsed_body)`,
    text: /^\s*Of course\. This is an excellent question/,
    reasoning: /Deconstruct the User's Prompt/,
  },
  {
    file: "ollama-cloud-tool-output.json",
    service: "Ollama (cloud, gpt-oss: `reasoning`)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_ollama/test_ollama_cloud_tool_output.yaml (parsed_body)`,
    text: "Paris.",
    reasoning: /^We need to answer question/,
  },
  {
    file: "cerebras-zai-reasoning.json",
    service: "Cerebras (GLM)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_cerebras/test_cerebras_zai_reasoning_replayed_as_think_tags.yaml (parsed_body)`,
    text: "25 * 4 = 100.",
    reasoning: /^The user wants me to solve the multiplication problem/,
  },
  // ------------------------------------------------------------ Anthropic, streamed
  {
    file: "anthropic-text.sse",
    service: "Anthropic",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-text.chunks.txt`,
    text: /^Hello! I'm doing well, thank you for asking/,
    reasoning: "",
  },
  {
    file: "anthropic-tool-no-args.sse",
    service: "Anthropic",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-tool-no-args.chunks.txt`,
    calls: [{ name: "updateIssueList", args: {} }],
  },
  {
    file: "anthropic-json-tool.sse",
    service: "Anthropic",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-json-tool.1.chunks.txt`,
    calls: [
      {
        name: "json",
        args: { elements: [{ location: "San Francisco", temperature: 58, condition: "sunny" }] },
      },
    ],
  },
  {
    file: "anthropic-thinking.sse",
    service: "Anthropic (thinking)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-clear-thinking.1.chunks.txt`,
    text: "925 ÷ 5 = 185",
    reasoning: /^The previous result was 925\. Now I need to divide that by 5/,
  },
  {
    file: "anthropic-thinking-stream.sse",
    service: "Anthropic (thinking)",
    wire: "anthropic",
    source: `${PYDANTIC} tests/models/cassettes/test_anthropic/test_anthropic_model_thinking_part_stream.yaml`,
    text: /^Here are the basic steps for safely crossing the street/,
    reasoning: /^This is a straightforward question about pedestrian safety/,
  },
  {
    file: "anthropic-redacted-thinking.sse",
    service: "Anthropic (redacted thinking)",
    wire: "anthropic",
    source: `${PYDANTIC} tests/models/cassettes/test_anthropic/test_anthropic_model_thinking_part_redacted_stream.yaml`,
    text: /^I notice that you've sent what appears to be/,
    reasoning: "",
  },
  {
    file: "anthropic-web-search.sse",
    service: "Anthropic (server-side web search)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-web-search-tool.1.chunks.txt`,
    calls: [],
    text: /^Based on my search results, here are the key tech news developments/,
  },
  {
    file: "anthropic-web-fetch.sse",
    service: "Anthropic (server-side web fetch)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-web-fetch-tool.1.chunks.txt`,
    calls: [],
    text: /what it's about\.\n\nThis Wikipedia page is about the \*\*Maglemosian culture\*\*/,
  },
  {
    file: "anthropic-code-execution.sse",
    service: "Anthropic (server-side code execution)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-code-execution-20250825.1.chunks.txt`,
    calls: [],
    text: /Fibonacci number\.\n\nNow let's execute the script[\s\S]*Fibonacci number:\n\nPerfect! The script/,
  },
  {
    file: "anthropic-mcp.sse",
    service: "Anthropic (MCP connector)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-mcp.1.chunks.txt`,
    calls: [],
    text: /^The echo tool responded back with: \*\*hello world\*\*/,
  },
  {
    file: "anthropic-refusal.sse",
    service: "Anthropic (refusal)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-refusal.chunks.txt`,
    error: /declined[\s\S]*stop reason `refusal`/,
  },
  {
    file: "anthropic-pause-turn.1.sse",
    service: "Anthropic (web search paused with pause_turn, then continued)",
    wire: "anthropic",
    source: `${PYDANTIC} tests/models/cassettes/test_anthropic/test_pause_turn_web_search_streaming_vcr.yaml (interactions 0 and 1)`,
    next: ["anthropic-pause-turn.2.sse"],
    calls: [],
    text: /Perfect! I've completed all 15 searches as requested/,
    reasoning: /^The user wants me to run a series of web searches/,
  },
  // ------------------------------------------------------------ Anthropic, whole JSON
  {
    file: "anthropic-thinking.json",
    service: "Anthropic (thinking)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-clear-thinking.1.json`,
    text: "925 ÷ 5 = 185",
    reasoning: "925 divided by 5 = 185",
  },
  {
    file: "anthropic-tool-with-thinking.json",
    service: "Anthropic (thinking, then a tool call)",
    wire: "anthropic",
    source: `${PYDANTIC} tests/models/cassettes/test_anthropic/test_anthropic_tool_with_thinking.yaml (interaction 0, parsed_body)`,
    calls: [{ name: "get_user_country", args: {} }],
    reasoning: /^The user is asking about the largest city/,
  },
  {
    file: "anthropic-web-search.json",
    service: "Anthropic (server-side web search)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-web-search-tool.1.json`,
    calls: [],
    text: /Based on the search results, here are the key tech news/,
  },
  {
    file: "anthropic-mcp.json",
    service: "Anthropic (MCP connector)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-mcp.1.json`,
    calls: [],
    text: /^The echo tool responded back with/,
  },
  {
    file: "anthropic-refusal.json",
    service: "Anthropic (refusal)",
    wire: "anthropic",
    source: `${VERCEL} packages/anthropic/src/__fixtures__/anthropic-refusal.json`,
    error: /declined[\s\S]*stop reason `refusal`/,
  },

  // ------------------------------------------------- local servers and a real OpenAI refusal
  {
    file: "openai-refusal.sse",
    service: "OpenAI (gpt-4o, refusal streamed in delta.refusal)",
    wire: "openai",
    source: `${OPENAI_PY} .inline-snapshot/external/ca015b8b1ebaac98be76f2f855f8694b77f608de5e2a3799276be06ce3fbb15b.bin (tests/lib/chat/test_completions_streaming.py, test_parse_pydantic_model_refusal)`,
    text: "I'm sorry, but I can't assist with that request.",
    reasoning: "",
  },
  {
    file: "ollama-local-reasoning.json",
    service: "Ollama (local, qwen3:0.6b, OpenAI-compatible /v1: `reasoning`)",
    wire: "openai",
    source: `${PYDANTIC} tests/models/cassettes/test_ollama/test_ollama_local_native_output_uses_json_schema.yaml (parsed_body)`,
    text: '{ "city": "Paris", "country": "France" }',
    reasoning: /^Okay, the user is asking for the capital of France/,
  },
  {
    file: "lmstudio-tool-call.1.json",
    service: "LM Studio (gpt-oss-20b: `reasoning`, a tool call, `stats`)",
    wire: "openai",
    source: `${LMSTUDIO} src/main/kotlin/dev/fromnowon/record5/readme.md (the two "Generated prediction" logs)`,
    next: ["lmstudio-tool-call.2.json"],
    calls: [
      {
        name: "say_to_user",
        args: {
          message:
            "Hello! I can help with a wide range of tasks—answering questions, providing explanations, generating ideas or content, assisting with programming, offering study help, and more. Just let me know what you need!",
        },
      },
    ],
    reasoning: "User greeting. Need to respond concisely, explain capabilities.",
  },
  {
    file: "llamacpp-docs-tool-call.json",
    service: 'llama.cpp server (finish_reason "tool", calls without `function` or `id`)',
    wire: "openai",
    source: `${LLAMA_CPP} docs/function-calling.md (the documented response)`,
    calls: [{ name: "python", args: { code: ' \nprint("Hello, World!")' } }],
  },
  {
    file: "vllm-qwen3-tool-call.1.json",
    service:
      "vLLM (Qwen3-8B, --reasoning-parser qwen3, --tool-call-parser hermes: `reasoning` and `reasoning_content` both)",
    wire: "openai",
    source:
      "public Markdown notes of a LangChain agent on vLLM (traffic_toy_tools_response1.json and response2.json as printed there; the search index gives id 19029985461, not the repository)",
    next: ["vllm-qwen3-tool-call.2.json"],
    calls: [
      { name: "add", args: { a: 3, b: 5 } },
      { name: "multiply", args: { a: 8, b: 8 } },
    ],
    reasoning:
      /^\nOkay, let's see\. The user wants me to calculate \(3 \+ 5\) \* 8\.[\s\S]*that should work\.\n$/,
  },
];
