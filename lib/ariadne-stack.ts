// The Ariadne stack: handler Lambdas and the experiment state machine.
import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { HandlerFunctions } from './handler-functions.ts';
import { ExperimentStateMachine } from './experiment-state-machine.ts';
import { FailureHandling } from './failure-handling.ts';

export interface AriadneStackProps extends StackProps {
  /** Environment passed to every handler (database settings). */
  handlerEnvironment?: Record<string, string>;
}

export class AriadneStack extends Stack {
  readonly experiments: ExperimentStateMachine;

  constructor(scope: Construct, id: string, props: AriadneStackProps = {}) {
    super(scope, id, props);
    const functions = new HandlerFunctions(this, 'Handlers', { environment: props.handlerEnvironment });
    this.experiments = new ExperimentStateMachine(this, 'Experiments', { functions: functions.byState, stateMachineName: `${this.stackName}-experiments` });
    new FailureHandling(this, 'FailureHandling', { stateMachine: this.experiments.stateMachine, environment: props.handlerEnvironment });
    new CfnOutput(this, 'StateMachineArn', { value: this.experiments.stateMachine.stateMachineArn });
  }
}
