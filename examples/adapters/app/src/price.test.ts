import { price } from "./price";

export const priceTimesQty = price(250, 2) === 500;
