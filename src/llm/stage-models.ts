import type { KgragConfig } from "../config.js";
import type { ChatModel, ChatRequest, ChatResponse, Stage } from "./chat-model.js";
import type { LlmConfig } from "./openai-chat.js";

type StageKey = keyof NonNullable<KgragConfig["stages"]>;

/** One stage's settings; the model may be missing where the caller brings a chat model object. */
export type StageSettings = NonNullable<KgragConfig["llm"]>;

/** Which config key under `stages` sets the model of each request stage. */
export const STAGE_CONFIG_KEYS: Record<Stage, StageKey> = {
  extract: "extraction",
  glean: "extraction",
  summarize: "summaries",
  report: "reports",
  keywords: "keywords",
  answer: "answers",
  "global-map": "globalMap",
  "global-reduce": "globalReduce",
  text2cypher: "text2cypher",
  resolve: "entityResolution",
};

/**
 * The settings one stage runs with: its own under `stages`, the rest from `llm`; null offline.
 * Another model does not inherit the default's price and rate limits (they belong to a model),
 * and another endpoint does not inherit its API key (it would go to another host).
 */
export function stageSettings(config: KgragConfig, stage: Stage): StageSettings | null {
  const base = config.llm;
  if (!base) return null;
  const own = config.stages?.[STAGE_CONFIG_KEYS[stage]];
  if (!own) return base;
  const given = Object.fromEntries(Object.entries(own).filter(([, value]) => value !== undefined));
  const otherEndpoint = own.baseURL !== undefined && own.baseURL !== base.baseURL;
  const otherModel = otherEndpoint || (own.model !== undefined && own.model !== base.model);
  const { price, requestsPerMinute, tokensPerMinute, apiKey, apiKeyEnv, ...shared } = base;
  return {
    ...shared,
    ...(otherModel ? {} : { price, requestsPerMinute, tokensPerMinute }),
    ...(otherEndpoint ? {} : { apiKey, apiKeyEnv }),
    ...given,
  };
}

/** What makes two stages' clients different: everything but what is sent per request or only priced. */
export function clientKey(settings: StageSettings): string {
  const { temperature: _t, maxOutputTokens: _m, price: _p, ...client } = settings;
  return JSON.stringify(client);
}

export interface StageRoute {
  chat: ChatModel;
  settings: LlmConfig;
}

/**
 * Sends each request to its stage's model, with the stage's temperature and output limit when
 * configured. Every request carries its stage, so no caller needs to know that models differ.
 */
export class StageRoutedChat implements ChatModel {
  readonly model: string;

  constructor(
    private readonly routes: Record<Stage, StageRoute>,
    defaultModel: string,
  ) {
    this.model = defaultModel;
  }

  modelFor(stage: Stage): string {
    return this.routes[stage].settings.model;
  }

  chat(request: ChatRequest): Promise<ChatResponse> {
    const route = this.routes[request.stage];
    return route.chat.chat({
      ...request,
      temperature: route.settings.temperature ?? request.temperature,
      maxTokens: route.settings.maxOutputTokens ?? request.maxTokens,
    });
  }
}
