import type { ToolOutcome } from "../../protocol/index.ts";
import { describeImage, fitImage, type ImageHeader } from "../files/index.ts";

/**
 * `read_file` on an image: the picture itself for a model that takes images, else what it is in
 * words (type, size, dimensions), so the model can still reason about it or ask the user.
 */
export async function readImageOutcome(input: {
  display: string;
  bytes: Buffer;
  header: ImageHeader;
  acceptsImages: boolean;
}): Promise<ToolOutcome> {
  const what = describeImage(input.header, input.bytes.length);
  const details = {
    type: "read" as const,
    path: input.display,
    lines: 0,
    totalLines: 0,
    complete: true,
  };
  if (!input.acceptsImages)
    return {
      isError: false,
      content: `${input.display} is an image (${what}). The model of this session does not take images, so only its description is given.`,
      details,
    };
  const checked = await fitImage(input.bytes);
  if (!checked.ok)
    return {
      isError: false,
      content: `${input.display} is an image (${what}) but ${checked.reason.replace(/^is /, "it is ")}.`,
      details,
    };
  return {
    isError: false,
    content: `${input.display} (${what}) is attached as an image${checked.scaled ? `, ${checked.scaled}` : ""}.`,
    details,
    images: [checked.part],
  };
}
