// Operator alerts: dead letters on the work queues, and the app's alert events (design: "An alert is a
// warn-level structured log line plus an OpenTelemetry event named ..."), routed to one action group.

@description('Tags applied to every resource.')
param tags object

@description('Azure region for the log alert (metric alerts and action groups are global).')
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

@description('Application Insights component that receives the app telemetry.')
param applicationInsightsName string

@description('Alert event names the app emits (design: alerts).')
param alertEvents array = [
  'GapTooOld'
  'IdempotencyKeyConflict'
  'SequenceConflict'
  'ParkedEntryRejected'
  'OutboxFailed'
]

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

// The events reach Application Insights as custom events or as log lines carrying the event name,
// depending on the exporter path, so the query looks at both and splits by event name.
var eventList = join(map(alertEvents, e => '\'${e}\''), ', ')
var eventPattern = join(alertEvents, '|')
var eventQuery = '''
let names = dynamic([{0}]);
union isfuzzy=true
  (customEvents | where name in (names) | project timestamp, alert = name),
  (traces
    | extend alert = extract(@"\b({1})\b", 1, strcat(message, " ", tostring(customDimensions)))
    | where alert in (names)
    | project timestamp, alert)
| summarize events = count() by alert
'''

resource eventAlert 'Microsoft.Insights/scheduledQueryRules@2023-12-01' = {
  name: '${alertNamePrefix}app-events'
  location: location
  tags: tags
  kind: 'LogAlert'
  properties: {
    displayName: 'Ledger Convoy alert events'
    description: 'GapTooOld, IdempotencyKeyConflict, SequenceConflict, ParkedEntryRejected or OutboxFailed was raised.'
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

output actionGroupId string = actionGroup.id
