/** The media type of every JSON body the hosts send: Error records, listings, documents. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
