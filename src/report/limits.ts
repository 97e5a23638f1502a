// GitHub's size limits for what the action writes.

/** Issue/PR comment body, in characters. */
export const COMMENT_LIMIT = 65_536;
/** Check-run output `summary` and `text`, in characters each. */
export const CHECK_TEXT_LIMIT = 65_535;
/** Job summary per step, in bytes. */
export const SUMMARY_LIMIT_BYTES = 1024 * 1024;
/** Check-run annotations per request. */
export const ANNOTATIONS_PER_REQUEST = 50;
/** Annotations per check run we send at most (the rest are counted in the last one). */
export const MAX_ANNOTATIONS = 1000;
/** Annotation title, in characters. */
export const ANNOTATION_TITLE_LIMIT = 255;
/** Annotation message / raw_details: GitHub allows 64 KB; we keep them short. */
export const ANNOTATION_MESSAGE_LIMIT = 4000;
