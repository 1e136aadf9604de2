import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import webpDecode, { init as initWebpDecode } from '@jsquash/webp/decode.js';
import webpEncode, { init as initWebpEncode } from '@jsquash/webp/encode.js';
import jpeg from 'jpeg-js';
import { GifReader, GifWriter } from 'omggif';
import { PNG } from 'pngjs';

/**
 * Real encoders and decoders, for tests only: they make the images the structure walk must accept, and judge
 * from outside that every image it accepts decodes (pngjs, jpeg-js, omggif; libwebp compiled to WebAssembly).
 */
export type Format = 'PNG' | 'JPEG' | 'GIF' | 'WebP';
export const FORMATS: Format[] = ['PNG', 'JPEG', 'GIF', 'WebP'];

/** Pixels as RGBA, 4 bytes each. */
export interface Pixels {
  width: number;
  height: number;
  data: Uint8Array;
}

const webpDirectory = dirname(createRequire(import.meta.url).resolve('@jsquash/webp/package.json'));
/** The WebAssembly global (the project's TypeScript libraries leave it out). */
const { WebAssembly: wasmApi } = globalThis as unknown as {
  WebAssembly: { Module: new (bytes: Uint8Array) => object };
};
/** The packages' init takes a compiled module at run time, though their types omit it. */
const withModule = (init: unknown, path: string) =>
  (init as (module: object) => Promise<unknown>)(new wasmApi.Module(readFileSync(join(webpDirectory, path))));
let webpReady: Promise<unknown> | undefined;
/** libwebp's WebAssembly, loaded from the package (in Node it cannot fetch it). */
function webp(): Promise<unknown> {
  // Node has WebAssembly SIMD, so the encoder takes its SIMD build.
  webpReady ??= Promise.all([
    withModule(initWebpDecode, 'codec/dec/webp_dec.wasm'),
    withModule(initWebpEncode, 'codec/enc/webp_enc_simd.wasm'),
  ]);
  return webpReady;
}

export async function encode(format: Format, pixels: Pixels, options: { lossless?: boolean } = {}) {
  const { width, height, data } = pixels;
  switch (format) {
    case 'PNG': {
      const png = new PNG({ width, height });
      png.data = Buffer.from(data);
      return PNG.sync.write(png);
    }
    case 'JPEG':
      return jpeg.encode({ width, height, data: Buffer.from(data) }, 85).data;
    case 'GIF':
      return gif(pixels);
    case 'WebP': {
      await webp();
      const image = { width, height, data: new Uint8ClampedArray(data) } as Parameters<typeof webpEncode>[0];
      return Buffer.from(await webpEncode(image, { lossless: options.lossless ? 1 : 0 }));
    }
  }
}

/** A GIF of the pixels' colours, each reduced to 3-3-2 bits so that 256 colours hold them all. */
function gif({ width, height, data }: Pixels): Buffer {
  const palette = Array.from(
    { length: 256 },
    (_, i) => (((i >> 5) * 36) << 16) | ((((i >> 2) & 7) * 36) << 8) | ((i & 3) * 85),
  );
  const indices = Array.from({ length: width * height }, (_, i) => {
    const [r = 0, g = 0, b = 0] = data.subarray(i * 4, i * 4 + 3);
    return ((r >> 5) << 5) | ((g >> 5) << 2) | (b >> 6);
  });
  const buffer = Buffer.alloc(1024 + width * height * 2);
  const writer = new GifWriter(buffer, width, height, { palette });
  writer.addFrame(0, 0, width, height, indices);
  return buffer.subarray(0, writer.end());
}

/** The image decoded by its format's decoder (throws when the decoder cannot read it). */
export async function decode(format: Format, bytes: Uint8Array): Promise<{ width: number; height: number }> {
  switch (format) {
    case 'PNG':
      return PNG.sync.read(Buffer.from(bytes), { checkCRC: true });
    case 'JPEG':
      return jpeg.decode(bytes, { useTArray: true, maxMemoryUsageInMB: 64 });
    case 'GIF': {
      const reader = new GifReader(Buffer.from(bytes));
      reader.decodeAndBlitFrameRGBA(0, new Uint8Array(reader.width * reader.height * 4));
      return { width: reader.width, height: reader.height };
    }
    case 'WebP': {
      await webp();
      return webpDecode(
        bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer,
      );
    }
  }
}
