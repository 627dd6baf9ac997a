// The observation formats by name (config.observation): what the model reads
// at the start of a turn and after each of its tool calls.
import type { Observation } from '../../../engine/agent.ts';
import type { ActionResult } from '../../../engine/game.ts';
import type { ObservationFormat } from '../../../config/experiment-config.ts';
import { adjacencyFormat } from './adjacency.ts';
import { coordinatesFormat } from './coordinates.ts';
import { fullMapFormat } from './full-map.ts';
import { jsonFormat } from './json.ts';
import { localGridFormat } from './local-grid.ts';
import { raysFormat } from './rays.ts';
import { imageFormat } from './image.ts';
import type { ViewImage } from './view-image.ts';

interface Renderer {
  observation(obs: Observation, maxMoves: number): string;
  /** `obs` is the observation the result is shown with (its config and maze size). */
  result(r: ActionResult, obs: Observation): string;
}

// a Record over the config's enum: a format added there without a renderer does not compile
const RENDERERS: Record<ObservationFormat, Renderer> = {
  rays: raysFormat,
  local_grid: localGridFormat,
  full_map: fullMapFormat,
  coordinates: coordinatesFormat,
  json: jsonFormat,
  image: imageFormat,
  adjacency: adjacencyFormat,
};

export function renderObservation(format: ObservationFormat, obs: Observation, maxMoves: number): string {
  return RENDERERS[format].observation(obs, maxMoves);
}

export function renderResult(format: ObservationFormat, r: ActionResult, obs: Observation): string {
  return RENDERERS[format].result(r, obs);
}

/** The formats that show pictures: their messages carry images (chat-model.ts), one after each caption line. */
export const showsPictures = (format: ObservationFormat): boolean => format === 'image';

/** The turn's first picture (the image format only). */
export function observationPicture(obs: Observation): ViewImage {
  return imageFormat.picture(obs.position, obs.visible, obs);
}

/** The pictures of a reply's executed actions, each with its caption line (the image format only). */
export function resultPictures(
  results: readonly ActionResult[],
  obs: Observation,
): Array<{ caption: string; image: ViewImage }> {
  return results
    .filter((r) => r.executed)
    .map((r) => ({ caption: imageFormat.caption(r, obs), image: imageFormat.picture(r.to, r.vision, obs) }));
}
