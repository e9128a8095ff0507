export { format } from "./format";
