// `webdata-temporal/storage`: the document stores (a JSON Lines folder, PostgreSQL).
export * from 'webdata-storage';
