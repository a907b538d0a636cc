/** One server-sent event: `event` is undefined for unnamed messages and ":" for comments. */
export interface StreamMessage {
  id?: string;
  event?: string;
  data?: any;
}

export interface OpenEventStream {
  status: number;
  contentType: string | null;
  messages: StreamMessage[];
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): Promise<void>;
}

/** Opens a server-sent event stream with fetch and parses its messages as they arrive. */
export async function openEventStream(url: string, headers: Record<string, string> = {}): Promise<OpenEventStream> {
  const res = await fetch(url, { headers: { accept: "text/event-stream", ...headers } });
  const messages: StreamMessage[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf("\n\n")) >= 0) {
        const message: StreamMessage = {};
        for (const line of buffer.slice(0, end).split("\n")) {
          if (line.startsWith(":")) message.event = ":";
          else if (line.startsWith("id: ")) message.id = line.slice(4);
          else if (line.startsWith("event: ")) message.event = line.slice(7);
          else if (line.startsWith("data: ")) message.data = JSON.parse(line.slice(6));
        }
        buffer = buffer.slice(end + 2);
        if (message.event !== undefined || message.data !== undefined) messages.push(message);
      }
    }
  })();
  return {
    status: res.status,
    contentType: res.headers.get("content-type"),
    messages,
    ended,
    close: () => reader.cancel().catch(() => undefined),
  };
}

/** The domain events (unnamed messages) a stream has received so far. */
export const domainEvents = (stream: OpenEventStream) => stream.messages.filter((m) => m.event === undefined).map((m) => m.data);
