// The jimp nex scales pictures with (its core, PNG, JPEG and resize), for tests that draw pictures.
import { createJimp } from "@jimp/core";
import jpeg from "@jimp/js-jpeg";
import png from "@jimp/js-png";
import { methods as resize } from "@jimp/plugin-resize";

export const Jimp = createJimp({ formats: [png, jpeg], plugins: [resize] });
export const JimpMime = { png: "image/png", jpeg: "image/jpeg" } as const;
