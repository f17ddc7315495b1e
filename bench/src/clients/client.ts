/** One way of doing the bench's work; every method returns what it assembled, so the bench checks it. */
export interface BenchClient {
  readonly name: string;
  /** One reply from `text-N`: streams every delta and returns the assembled text. */
  text(model: string): Promise<string>;
  /** One tool round trip: the model calls get_weather, the client runs it, the model answers. Returns the answer. */
  toolRoundTrip(): Promise<string>;
}

export type ClientFactory = (baseURL: string) => Promise<BenchClient>;

export const PROMPT = "What is the weather in Paris?";
export const TOOL_DESCRIPTION = "The current weather in a city.";
