// The environment a Lambda handler bound to a Data API cluster gets (DATABASE_* as lib/database.ts sets them), here
// pointed at a simulator, with placeholder credentials the simulator accepts.
import type { RdsDataSim } from '../../simulators/rds-data-sim.ts';

export const dataApiFunctionEnv = (sim: RdsDataSim, endpoint: string): Record<string, string> => ({
  DATABASE_CLUSTER_ARN: sim.clusterArn,
  DATABASE_SECRET_ARN: sim.secretArn,
  DATABASE_NAME: sim.database,
  AWS_ENDPOINT_URL_RDS_DATA: endpoint,
  AWS_REGION: 'eu-west-1',
  AWS_ACCESS_KEY_ID: 'AKIDTEST',
  AWS_SECRET_ACCESS_KEY: 'test-secret',
});
