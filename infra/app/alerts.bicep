// Operator alerts, routed to one action group: dead letters on the work queues, the backlog of the event topic,
// sustained Cosmos DB throttling, the app's alerts (docs/contracts.md: a warn-level structured log line plus an OpenTelemetry event;
// the app also counts each one in a metric of the same name), and the outbox relay's holds and lag.

@description('Tags applied to every resource.')
param tags object

@description('Azure region for the log alerts (metric alerts and action groups are global).')
param location string

@description('Action group name.')
param actionGroupName string

@description('Prefix for alert rule names.')
param alertNamePrefix string

@description('E-mail address that receives alerts; empty creates the action group without receivers.')
param alertEmail string = ''

@description('Service Bus namespace whose dead-letter counts are watched.')
param serviceBusNamespaceName string

@description('Queues whose dead-letter count must stay at zero.')
param deadLetterQueues array = [
  'ledger'
  'orders'
]

@description('The topic the app publishes events to (nothing in the app consumes it); its backlog is watched.')
param eventTopic string = 'order-events'

@description('Active messages on the event topic (all its subscriptions) above which the backlog alert fires.')
@minValue(1)
param eventTopicBacklogThreshold int = 100000

@description('Application Insights component that receives the app telemetry.')
param applicationInsightsName string

@description('Alert names the app emits, as events and as counters (docs/contracts.md; src/core/ports/telemetry.ts).')
param alertEvents array = [
  'GapTooOld'
  'IdempotencyKeyConflict'
  'SequenceConflict'
  'ParkedEntryRejected'
  'OutboxFailed'
  'OutboxDiscarded'
]

@description('Gauge the app reports for orders whose events are held for a target (src/adapters/metrics.ts).')
param outboxHoldsMetric string = 'convoy.outbox.holds'

@description('Gauge the app reports for the outbox relay lag, in seconds (src/adapters/metrics.ts).')
param outboxLagMetric string = 'convoy.outbox.lag_seconds'

@description('Relay lag that alerts, in seconds (PT15M).')
param outboxLagThresholdSeconds int = 900

@description('Cosmos DB account whose throttled requests (429) are watched.')
param cosmosAccountName string

@description('Throttled Cosmos DB requests (status 429) in 15 minutes above which the throttling alert fires (infra/README.md, "Staying inside the Cosmos DB budget").')
@minValue(1)
param cosmosThrottledRequestsThreshold int = 1000

resource cosmosAccount 'Microsoft.DocumentDB/databaseAccounts@2024-11-15' existing = {
  name: cosmosAccountName
}

resource serviceBus 'Microsoft.ServiceBus/namespaces@2024-01-01' existing = {
  name: serviceBusNamespaceName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

resource actionGroup 'Microsoft.Insights/actionGroups@2023-01-01' = {
  name: actionGroupName
  location: 'global'
  tags: tags
  properties: {
    groupShortName: 'convoy'
    enabled: true
    emailReceivers: empty(alertEmail)
      ? []
      : [
          {
            name: 'operator'
            emailAddress: alertEmail
            useCommonAlertSchema: true
          }
        ]
  }
}

// A dead letter always needs an operator (resubmit or purge), so any non-zero count alerts.
resource deadLetterAlerts 'Microsoft.Insights/metricAlerts@2018-03-01' = [
  for queueName in deadLetterQueues: {
    name: '${alertNamePrefix}deadletters-${queueName}'
    location: 'global'
    tags: tags
    properties: {
      description: 'Dead-lettered messages in queue ${queueName}: inspect with `convoy dlq list`.'
      severity: 2
      enabled: true
      scopes: [serviceBus.id]
      evaluationFrequency: 'PT5M'
      windowSize: 'PT5M'
      autoMitigate: true
      criteria: {
        'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
        allOf: [
          {
            criterionType: 'StaticThresholdCriterion'
            name: 'DeadletteredMessages'
            metricNamespace: 'Microsoft.ServiceBus/namespaces'
            metricName: 'DeadletteredMessages'
            dimensions: [
              {
                name: 'EntityName'
                operator: 'Include'
                values: [queueName]
              }
            ]
            operator: 'GreaterThan'
            threshold: 0
            timeAggregation: 'Maximum'
          }
        ]
      }
      actions: [{ actionGroupId: actionGroup.id }]
    }
  }
]

// Each subscription of the event topic keeps a copy of every event it selects until read or expired (without
// dead-lettering: DeadLetteringOnMessageExpiration is off for `all`), and every copy counts towards the topic's size.
// A backlog far above normal means a subscription nobody drains is filling the topic; once full, every send fails
// (QuotaExceeded) and the relay stops for every downstream: act before that (docs/operations.md, "A full topic").
resource eventBacklogAlert 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: '${alertNamePrefix}backlog-${eventTopic}'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than ${eventTopicBacklogThreshold} active messages in topic ${eventTopic}: a subscription is not drained. Start its consumer, lower its TTL or delete it before the topic fills (`convoy sessions` shows each subscription\'s backlog).'
    severity: 3
    enabled: true
    scopes: [serviceBus.id]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    autoMitigate: true
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'ActiveMessages'
          metricNamespace: 'Microsoft.ServiceBus/namespaces'
          metricName: 'ActiveMessages'
          dimensions: [
            {
              name: 'EntityName'
              operator: 'Include'
              values: [eventTopic]
            }
          ]
          operator: 'GreaterThan'
          threshold: eventTopicBacklogThreshold
          timeAggregation: 'Maximum'
        }
      ]
    }
    actions: [{ actionGroupId: actionGroup.id }]
  }
}

// Sustained throttling: the processor waits out every 429 with its session held (rule 8), so nothing dead-letters
// and nothing else fails first; the backlog only grows. A burst of 429s is normal and brief (a few per waiting
// session); a 15-minute window above the threshold means demand stays above the account's budget: raise the
// provisioned throughput or lower the app's concurrency (infra/README.md, "Staying inside the Cosmos DB budget").
resource cosmosThrottlingAlert 'Microsoft.Insights/metricAlerts@2018-03-01' = {
  name: '${alertNamePrefix}cosmos-throttled'
  location: 'global'
  tags: tags
  properties: {
    description: 'More than ${cosmosThrottledRequestsThreshold} Cosmos DB requests throttled (429) in 15 minutes: the app asks more than the account serves, and entries wait. Raise the throughput or lower maxConcurrentSessions (infra/README.md).'
    severity: 2
    enabled: true
    scopes: [cosmosAccount.id]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT15M'
    autoMitigate: true
    criteria: {
      'odata.type': 'Microsoft.Azure.Monitor.SingleResourceMultipleMetricCriteria'
      allOf: [
        {
          criterionType: 'StaticThresholdCriterion'
          name: 'ThrottledRequests'
          metricNamespace: 'Microsoft.DocumentDB/databaseAccounts'
          metricName: 'TotalRequests'
          dimensions: [
            {
              name: 'StatusCode'
              operator: 'Include'
              values: ['429']
            }
          ]
          operator: 'GreaterThan'
          threshold: cosmosThrottledRequestsThreshold
          timeAggregation: 'Count'
        }
      ]
    }
    actions: [{ actionGroupId: actionGroup.id }]
  }
}

// The app raises each alert three ways: a warn log line (pino to stdout, collected by the host as a trace), an
// OpenTelemetry event, and one increment of a counter named after the alert. Traces and events may be sampled
// (host.json and the OpenTelemetry distro sample them); metrics never are, so `customMetrics` is the reliable
// branch and the other two stay as a fallback. A counter row's `value` is the increments of one export interval.
var eventList = join(map(alertEvents, e => '\'${e}\''), ', ')
var eventPattern = join(alertEvents, '|')
var eventQuery = '''
let names = dynamic([{0}]);
union isfuzzy=true
  (customMetrics | where name in (names) | project timestamp, alert = name, n = todouble(value)),
  (customEvents | where name in (names) | project timestamp, alert = name, n = 1.0),
  (traces
    | extend alert = extract(@"\b({1})\b", 1, strcat(message, " ", tostring(customDimensions)))
    | where alert in (names)
    | project timestamp, alert, n = 1.0)
| summarize events = sum(n) by alert
'''

resource eventAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: '${alertNamePrefix}app-events'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'Ledger Convoy alert events'
    description: 'GapTooOld, IdempotencyKeyConflict, SequenceConflict, ParkedEntryRejected, OutboxFailed or OutboxDiscarded was raised.'
    severity: 2
    enabled: true
    scopes: [applicationInsights.id]
    evaluationFrequency: 'PT5M'
    windowSize: 'PT5M'
    // Each event is a discrete incident; there is nothing to resolve automatically.
    autoMitigate: false
    criteria: {
      allOf: [
        {
          query: format(eventQuery, eventList, eventPattern)
          timeAggregation: 'Total'
          metricMeasureColumn: 'events'
          dimensions: [
            {
              name: 'alert'
              operator: 'Include'
              values: ['*']
            }
          ]
          operator: 'GreaterThan'
          threshold: 0
          failingPeriods: {
            numberOfEvaluationPeriods: 1
            minFailingPeriodsToAlert: 1
          }
        }
      ]
    }
    actions: {
      actionGroups: [actionGroup.id]
    }
  }
}

// The relay's gauges (a timer reports them every minute) describe a state, not an event, so these rules are
// stateful: each resolves when its gauge is back under the threshold, instead of re-firing every evaluation.
var gaugeQuery = '''
customMetrics
| where name == '{0}'
| summarize value = max(todouble(value))
'''

var relayGaugeAlerts = [
  {
    name: 'outbox-holds'
    displayName: 'Ledger Convoy outbox holds'
    description: 'convoy.outbox.holds > 0: an outbox target kept failing for some orders; their records are held. The outboxHoldRetry timer releases them once the target is back; `convoy outbox list` shows their next attempt.'
    metric: outboxHoldsMetric
    threshold: 0
  }
  {
    name: 'outbox-lag'
    displayName: 'Ledger Convoy outbox relay lag'
    description: 'convoy.outbox.lag_seconds > ${outboxLagThresholdSeconds}: the outbox relay is behind the change feed of orders (its trigger failing and retrying, or stopped).'
    metric: outboxLagMetric
    threshold: outboxLagThresholdSeconds
  }
]

resource relayAlerts 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = [
  for gauge in relayGaugeAlerts: {
    name: '${alertNamePrefix}${gauge.name}'
    location: location
    tags: tags
    kind: 'LogAlert'
    properties: {
      displayName: gauge.displayName
      description: gauge.description
      severity: 2
      enabled: true
      scopes: [applicationInsights.id]
      evaluationFrequency: 'PT5M'
      windowSize: 'PT15M'
      autoMitigate: true
      criteria: {
        allOf: [
          {
            query: format(gaugeQuery, gauge.metric)
            timeAggregation: 'Maximum'
            metricMeasureColumn: 'value'
            operator: 'GreaterThan'
            threshold: gauge.threshold
            failingPeriods: {
              numberOfEvaluationPeriods: 1
              minFailingPeriodsToAlert: 1
            }
          }
        ]
      }
      actions: {
        actionGroups: [actionGroup.id]
      }
    }
  }
]

output actionGroupId string = actionGroup.id
