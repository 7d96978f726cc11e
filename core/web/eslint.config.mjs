// ESLint looks up the nearest config per file: the root rules, minus the build output.
import root from '../../eslint.config.mjs';

export default [{ ignores: ['dist/**'] }, ...root];
