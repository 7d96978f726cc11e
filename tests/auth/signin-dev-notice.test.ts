/** Issue 21: the development provider's notice said the first person to sign in becomes superadmin, also when one exists (the demo). */
import { expect, it } from 'vitest';
import { devProviderRoleRule } from '../../app/signin/dev-notice';
import { createUser } from '../helpers';

it('promises superadmin to the first person only while no superadmin exists', async () => {
  expect(await devProviderRoleRule()).toMatch(/first person to sign in becomes superadmin/);
  await createUser({ role: 'superadmin' });
  const rule = await devProviderRoleRule();
  expect(rule).not.toMatch(/first person/);
  expect(rule).toMatch(/superadmin exists already.*user role/);
});
