import { listBrands } from '../../shared/data/brands.ts';
import { httpHandler, ok } from '../../shared/http/handler.ts';

export const handler = httpHandler(async (req) => ok(await listBrands(req.teamId)));
