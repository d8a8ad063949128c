import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assetActions, assetStatuses, transition, type AssetAction, type AssetStatus } from '../../core/index.js';

/**
 * The state machine as the spec and contract state it, written out here independently of the
 * implementation's table: every (state, action) pair, the next state or the refusal code.
 */
const D = 'draft', P = 'pending', S = 'scheduled', PUB = 'published', R = 'rejected', C = 'changes_requested', A = 'archived';
const IS = 'INVALID_STATUS', ND = 'NOT_DRAFT', LIVE = 'LISTING_IS_LIVE';

const expected: Record<AssetAction, Record<AssetStatus, string>> = {
  //                  draft      pending   scheduled  published  rejected   changes_req  archived
  update: { [D]: D, [P]: IS, [S]: IS, [PUB]: PUB, [R]: R, [C]: C, [A]: IS },
  delete: { [D]: D, [P]: ND, [S]: ND, [PUB]: ND, [R]: ND, [C]: ND, [A]: ND },
  requestFileUpload: { [D]: D, [P]: IS, [S]: IS, [PUB]: LIVE, [R]: R, [C]: C, [A]: IS },
  confirmFile: { [D]: D, [P]: IS, [S]: IS, [PUB]: LIVE, [R]: R, [C]: C, [A]: IS },
  requestImageUpload: { [D]: D, [P]: IS, [S]: IS, [PUB]: PUB, [R]: R, [C]: C, [A]: IS },
  confirmImage: { [D]: D, [P]: IS, [S]: IS, [PUB]: PUB, [R]: R, [C]: C, [A]: IS },
  arrangeImages: { [D]: D, [P]: IS, [S]: IS, [PUB]: PUB, [R]: R, [C]: C, [A]: IS },
  submit: { [D]: P, [P]: IS, [S]: IS, [PUB]: IS, [R]: P, [C]: P, [A]: IS },
  submitScheduled: { [D]: S, [P]: IS, [S]: IS, [PUB]: IS, [R]: S, [C]: S, [A]: IS },
  approve: { [D]: IS, [P]: PUB, [S]: IS, [PUB]: IS, [R]: IS, [C]: IS, [A]: IS },
  reject: { [D]: IS, [P]: R, [S]: IS, [PUB]: IS, [R]: IS, [C]: IS, [A]: IS },
  requestChanges: { [D]: IS, [P]: C, [S]: IS, [PUB]: IS, [R]: IS, [C]: IS, [A]: IS },
  archive: { [D]: IS, [P]: IS, [S]: IS, [PUB]: A, [R]: IS, [C]: IS, [A]: IS },
  release: { [D]: IS, [P]: IS, [S]: P, [PUB]: IS, [R]: IS, [C]: IS, [A]: IS },
};

test('every (state, action) pair gives the next state or the refusal the contract names', () => {
  assert.deepEqual(Object.keys(expected).sort(), [...assetActions].sort(), 'the expectation covers every action');
  for (const action of assetActions) {
    for (const status of assetStatuses) {
      const outcome = transition(status, action);
      const got = 'next' in outcome ? outcome.next : outcome.refuse;
      assert.equal(got, expected[action][status], `${action} from ${status}`);
    }
  }
});
