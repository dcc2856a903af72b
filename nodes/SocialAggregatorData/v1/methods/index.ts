import { getDataPlatforms } from '../../../shared/loadOptions';

export const loadOptions = { getDataPlatforms };
