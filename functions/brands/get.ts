import { getBrand } from '../../shared/data/brands.ts';
import { httpHandler, ok, pathId } from '../../shared/http/handler.ts';

export const handler = httpHandler(async (req) => ok(await getBrand(req.teamId, pathId(req, 'Brand'))));
