// Tags of ours on the stack's resources, in a module free of aws-cdk-lib so the CLI can name them without loading CDK.

/**
 * On the database cluster and its secret, with the stack's name as the value: what a researcher policy written
 * before the deploy conditions on (aws:ResourceTag/ariadne:results-database), since their names are generated then.
 */
export const RESULTS_DATABASE_TAG = 'ariadne:results-database';

/**
 * On the researchers' read-only database secret, with the stack's name: a researcher policy written before the deploy
 * lets them read this secret and not the master's, which carries RESULTS_DATABASE_TAG only.
 */
export const RESULTS_READER_TAG = 'ariadne:results-reader';
