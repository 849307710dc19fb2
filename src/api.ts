// `webdata-temporal/api`: the typed HTTP client and the wire contract. Loads no Temporal package.
export * from 'webdata-client';
