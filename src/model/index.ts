// The scripted model endpoint: what the rest of the engine uses from src/model/.
export type { Conversation, Dialect, Message, ToolSpec } from './conversation.js';
export { parseConversation } from './conversation.js';
export type { Answer, Decision, Observed } from './policy.js';
export { decide, MAX_TOOL_CALLS } from './policy.js';
export type { ExchangeEntry, ModelHandler, ModelHandlerOptions } from './server.js';
export { answerRequest, createModelHandler } from './server.js';
