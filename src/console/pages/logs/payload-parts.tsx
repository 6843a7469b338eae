// Pieces of a payload's view: JSON blocks, images (inline data, remote ones only on request) and
// payloads stored cut short.
import { Anchor, Button, Code, Group, Image, Stack, Text } from "@mantine/core";
import { useState } from "react";

type Json = unknown;
type Obj = Record<string, Json>;
const isObj = (v: Json): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: Json): string | null => (typeof v === "string" ? v : null);

export function pretty(v: Json): string {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v, null, 2) ?? String(v);
}

export function JsonBlock({ value, label }: { value: Json; label?: string }) {
  return (
    <Code block aria-label={label} style={{ whiteSpace: "pre-wrap", wordBreak: "break-word", maxHeight: 360, overflow: "auto" }}>
      {pretty(value)}
    </Code>
  );
}

export const DATA_IMAGE = /^data:image\/[a-z0-9.+-]+;base64,/i;

/** A long URL cut in the middle: its host and the start of its path, and its end. */
function shortUrl(url: string, max = 64): string {
  return url.length <= max ? url : `${url.slice(0, max - 17)}…${url.slice(-16)}`;
}

export function ShownImage({ src }: { src: string }) {
  return (
    <Anchor href={src} target="_blank" rel="noreferrer noopener" aria-label="Open image">
      <Image
        src={src}
        alt="image in the message"
        h={96}
        w="auto"
        fit="contain"
        radius="sm"
        referrerPolicy="no-referrer"
        style={{ border: "1px solid var(--mantine-color-default-border)", imageRendering: "pixelated", minWidth: 48 }}
      />
    </Anchor>
  );
}

/**
 * An image at a remote URL. Opening a log must not fetch it: the request would tell whoever wrote
 * the payload (and controls that host) the viewer's address and when the log was read. It is shown
 * as a link, and fetched only on "Load image" (https only; an http image stays a link).
 */
export function RemoteImage({ url }: { url: string }) {
  // The URL that was asked for, not a flag: a part reused for another log's image (same place in
  // the next conversation) must not fetch that one unasked.
  const [loaded, setLoaded] = useState<string | null>(null);
  const https = /^https:\/\//i.test(url);
  if (loaded === url && https) return <ShownImage src={url} />;
  return (
    <Group gap="xs" wrap="nowrap" data-testid="remote-image">
      <Text size="sm" c="dimmed">
        image:
      </Text>
      <Anchor href={url} target="_blank" rel="noreferrer noopener" size="sm" ff="monospace" title={url} style={{ wordBreak: "break-all" }}>
        {shortUrl(url)}
      </Anchor>
      {https ? (
        <Button size="compact-xs" variant="light" onClick={() => setLoaded(url)} title={`Fetches the image from ${hostOf(url)}`}>
          Load image
        </Button>
      ) : null}
    </Group>
  );
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "its host";
  }
}

/** Characters of a payload stored cut short that the view shows (the rest is in the export). */
const CUT_PREVIEW_CHARS = 20_000;

/** A payload larger than the server keeps (HONE_MAX_LOGGED_PAYLOAD_BYTES): its size and how it began. */
export function CutShort({ payload, what }: { payload: Json; what: string }) {
  const cut = isObj(payload) && isObj(payload.hone_truncated_payload) ? payload.hone_truncated_payload : null;
  if (!cut) return null;
  const text = str(cut.text) ?? "";
  const bytes = typeof cut.bytes === "number" ? cut.bytes.toLocaleString("en-US") : "?";
  return (
    <Stack gap={4} data-testid="payload-cut-short">
      <Text size="sm" c="orange" fw={600}>
        The {what} was {bytes} bytes, more than the server keeps: only its beginning is stored.
      </Text>
      <Code block style={{ maxHeight: 320, overflow: "auto", whiteSpace: "pre-wrap", wordBreak: "break-all" }}>
        {text.length > CUT_PREVIEW_CHARS ? `${text.slice(0, CUT_PREVIEW_CHARS)}…` : text}
      </Code>
    </Stack>
  );
}

export const isCutShort = (payload: Json) => isObj(payload) && isObj(payload.hone_truncated_payload);
