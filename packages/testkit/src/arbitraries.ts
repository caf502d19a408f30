/**
 * @yoke/testkit/arbitraries — fast-check arbitraries for Yoke's events and JSON data. Needs
 * `fast-check` (an optional peer dependency of @yoke/testkit).
 */
export {
  eventBatchArbitrary,
  eventDataArbitrary,
  eventDraftArbitrary,
  jsonValueArbitrary,
  runStartedDraftArbitrary,
} from "./event-arbitraries.js";
