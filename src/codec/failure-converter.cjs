'use strict';
/* global require, exports */
// The failure converter of runs whose payloads are encrypted: a failure's message and stack trace
// move into its encoded attributes, a payload, which the payload codec then encrypts (the message
// left in clear is "Encoded failure"). Loaded by path (DataConverter.failureConverterPath): the
// worker require()s it in its main thread and bundles it into the workflow sandbox. CommonJS,
// so that require() loads it on every Node version the package supports, from src/ and lib/ alike.
// Workers check a prebuilt workflow bundle for the marker below (src/codec/data-converter.ts).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
exports.marker = 'webdata-temporal:encoded-failure-converter';
