// Tags of ours on the stack's resources, in a module free of aws-cdk-lib so the CLI can name them without loading CDK.

/**
 * On the database cluster and its secret, with the stack's name as the value: what a researcher policy written
 * before the deploy conditions on (aws:ResourceTag/ariadne:results-database), since their names are generated then.
 */
export const RESULTS_DATABASE_TAG = 'ariadne:results-database';
