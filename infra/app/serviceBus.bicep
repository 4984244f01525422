// Service Bus namespace, its queues and the order-events topic. Queues and topic come from the entity file (the
// official emulator's Config.json format): the same file our emulator loads, so local and Azure entities cannot
// drift apart. The topic's subscriptions come from a parameter (main.bicep, orderEventSubscriptions), whose default
// is the entity file's.

@export()
@description('A subscription of the order-events topic: one downstream. Every subscription is session-enabled (sessionId = orderId), so each order\'s events arrive in sequence order.')
type eventSubscription = {
  @description('Subscription name (1–50 characters).')
  @minLength(1)
  @maxLength(50)
  name: string

  @description('SQL filter over the message, e.g. "sys.Label = \'convoy.order.transaction-added\'" (sys.Label is the CloudEvents type); omitted: every event.')
  sqlFilter: string?

  @description('How long an event waits for this downstream (ISO 8601; default P1D). A subscription nobody drains fills the topic: keep it short.')
  defaultMessageTimeToLive: string?

  @description('Whether expired events go to the dead-letter queue (default false: a dead-letter queue nobody drains fills the topic too).')
  deadLetteringOnMessageExpiration: bool?

  @description('Peek-lock duration (ISO 8601; default PT1M).')
  lockDuration: string?

  @description('Deliveries before a message is dead-lettered (default 10).')
  maxDeliveryCount: int?
}

@description('Azure region.')
param location string

@description('Tags applied to every resource.')
param tags object

@description('Namespace name.')
param name string

@description('Standard is enough for sessions and duplicate detection; Premium adds isolation and larger messages.')
@allowed([
  'Standard'
  'Premium'
])
param sku string = 'Standard'

@description('Messaging units when the SKU is Premium.')
@allowed([
  1
  2
  4
  8
  16
])
param premiumCapacity int = 1

@description('Maximum size of each queue and of the topic in MB. The entity file cannot carry it (the emulator Config.json format has no such property), so it is set here; the values are the ones Standard accepts, Premium accepts them too.')
@allowed([
  1024
  2048
  3072
  4096
  5120
])
param maxQueueSizeInMegabytes int = 1024

@description('Disabled when the app reaches the namespace through its private endpoint only (VNET_ENABLED; Premium only).')
@allowed([
  'Enabled'
  'Disabled'
])
param publicNetworkAccess string = 'Enabled'

@description('Subscriptions of the order-events topic: one per downstream, each session-enabled (per-order order), optionally with a SQL filter.')
param eventSubscriptions eventSubscription[]

var entityFile = loadJsonContent('../servicebus.config.json')
// The file holds one namespace; its name only matters to the emulators.
var queues = entityFile.UserConfig.Namespaces[0].Queues
// One topic, order-events (src/core/queueNames.ts); its subscriptions come from eventSubscriptions.
var eventTopic = entityFile.UserConfig.Namespaces[0].Topics[0]

resource namespace 'Microsoft.ServiceBus/namespaces@2024-01-01' = {
  name: name
  location: location
  tags: tags
  sku: {
    name: sku
    tier: sku
    capacity: sku == 'Premium' ? premiumCapacity : null
  }
  properties: {
    // Entra ID only: no SAS keys can be used against this namespace.
    disableLocalAuth: true
    minimumTlsVersion: '1.2'
    publicNetworkAccess: publicNetworkAccess
  }
}

// ISO 8601 durations pass through unchanged; forwarding is set only when the file names a target. The size is
// explicit, as the topic's is, so every entity has a known ceiling.
resource queue 'Microsoft.ServiceBus/namespaces/queues@2024-01-01' = [
  for q in queues: {
    parent: namespace
    name: q.Name
    properties: union(
      {
        requiresSession: q.Properties.RequiresSession
        requiresDuplicateDetection: q.Properties.RequiresDuplicateDetection
        duplicateDetectionHistoryTimeWindow: q.Properties.DuplicateDetectionHistoryTimeWindow
        lockDuration: q.Properties.LockDuration
        maxDeliveryCount: q.Properties.MaxDeliveryCount
        defaultMessageTimeToLive: q.Properties.DefaultMessageTimeToLive
        deadLetteringOnMessageExpiration: q.Properties.DeadLetteringOnMessageExpiration
        maxSizeInMegabytes: maxQueueSizeInMegabytes
      },
      empty(q.Properties.?ForwardTo ?? '') ? {} : { forwardTo: q.Properties.ForwardTo },
      empty(q.Properties.?ForwardDeadLetteredMessagesTo ?? '')
        ? {}
        : { forwardDeadLetteredMessagesTo: q.Properties.ForwardDeadLetteredMessagesTo },
      // Optional in the file (no queue sets it today): any() because the loaded file's type has no such key.
      empty(any(q.Properties).?AutoDeleteOnIdle ?? '') ? {} : { autoDeleteOnIdle: any(q.Properties).AutoDeleteOnIdle }
    )
  }
]

// A topic keeps duplicate detection (the relay's replays) and a TTL; each subscription holds its own copy of every
// event it selects, until read or expired, and all of them count towards the topic's size.
resource topic 'Microsoft.ServiceBus/namespaces/topics@2024-01-01' = {
  parent: namespace
  name: eventTopic.Name
  properties: {
    requiresDuplicateDetection: eventTopic.Properties.RequiresDuplicateDetection
    duplicateDetectionHistoryTimeWindow: eventTopic.Properties.DuplicateDetectionHistoryTimeWindow
    defaultMessageTimeToLive: eventTopic.Properties.DefaultMessageTimeToLive
    maxSizeInMegabytes: maxQueueSizeInMegabytes
  }
}

// Session-enabled always: the relay sends sessionId = orderId, and a session receiver gets an order's events in order.
resource subscription 'Microsoft.ServiceBus/namespaces/topics/subscriptions@2024-01-01' = [
  for s in eventSubscriptions: {
    parent: topic
    name: s.name
    properties: {
      requiresSession: true
      lockDuration: s.?lockDuration ?? 'PT1M'
      maxDeliveryCount: s.?maxDeliveryCount ?? 10
      defaultMessageTimeToLive: s.?defaultMessageTimeToLive ?? 'P1D'
      deadLetteringOnMessageExpiration: s.?deadLetteringOnMessageExpiration ?? false
    }
  }
]

// A subscription made without rules gets $Default (every message); a filter replaces $Default rather than adding a
// second rule beside it, which would still let every message in.
resource filter 'Microsoft.ServiceBus/namespaces/topics/subscriptions/rules@2024-01-01' = [
  for (s, i) in eventSubscriptions: if (!empty(s.?sqlFilter ?? '')) {
    parent: subscription[i]
    name: '$Default'
    properties: {
      filterType: 'SqlFilter'
      sqlFilter: {
        sqlExpression: s.?sqlFilter
      }
    }
  }
]

output name string = namespace.name
output id string = namespace.id
// serviceBusEndpoint is https://<name>.servicebus.windows.net:443/; the SDKs and triggers want the bare host.
output fullyQualifiedNamespace string = split(split(namespace.properties.serviceBusEndpoint, '//')[1], ':')[0]
output queueNames array = [for (q, i) in queues: queue[i].name]
output topicName string = topic.name
output subscriptionNames array = [for (s, i) in eventSubscriptions: subscription[i].name]
