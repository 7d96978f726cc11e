import { Loading } from './_components/ui';

export default function RootLoading() {
  return <Loading rows={6} />;
}
