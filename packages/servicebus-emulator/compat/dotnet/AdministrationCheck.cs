// The .NET ServiceBusAdministrationClient against the emulator's management API. With UseDevelopmentEmulator=true
// in its connection string the client speaks plain HTTP to the port the Endpoint names (the emulator's admin port).
// Covers: namespace properties; create, get, update, list and delete of queues, topics, subscriptions and rules;
// 409 and "not found"; runtime properties; entities used at once by a sender and a receiver; a SQL filter with an
// action; a bad SQL expression refused with its position.
using Azure.Messaging.ServiceBus;
using Azure.Messaging.ServiceBus.Administration;

static class AdministrationCheck
{
    const string Queue = "dotnet-admin-queue";
    const string Topic = "dotnet-admin-topic";

    public static async Task Run(ServiceBusClient client, Action<bool, string> check)
    {
        var connection = Environment.GetEnvironmentVariable("SB_ADMIN_CONNECTION");
        if (connection is null)
        {
            check(false, "SB_ADMIN_CONNECTION is set (the administration connection string)");
            return;
        }
        var admin = new ServiceBusAdministrationClient(connection);

        NamespaceProperties ns = await admin.GetNamespacePropertiesAsync();
        check(ns.Name == "compat", $"admin: namespace properties ({ns.Name}, {ns.MessagingSku})");

        QueueProperties created = await admin.CreateQueueAsync(new CreateQueueOptions(Queue) { LockDuration = TimeSpan.FromSeconds(20), MaxDeliveryCount = 3 });
        check(created.Name == Queue && created.LockDuration == TimeSpan.FromSeconds(20) && created.MaxDeliveryCount == 3, "admin: queue created with its settings");
        check(await Fails(() => admin.CreateQueueAsync(Queue), ServiceBusFailureReason.MessagingEntityAlreadyExists), "admin: creating it again is MessagingEntityAlreadyExists");
        check((await admin.QueueExistsAsync(Queue)).Value && !(await admin.QueueExistsAsync("dotnet-admin-never")).Value, "admin: QueueExists true and false");
        check(await Fails(() => admin.GetQueueAsync("dotnet-admin-never"), ServiceBusFailureReason.MessagingEntityNotFound), "admin: unknown queue is MessagingEntityNotFound");

        await using (var sender = client.CreateSender(Queue))
            await sender.SendMessagesAsync(new[] { new ServiceBusMessage("a"), new ServiceBusMessage("b") });
        QueueRuntimeProperties rt = await admin.GetQueueRuntimePropertiesAsync(Queue);
        check(rt.ActiveMessageCount == 2 && rt.TotalMessageCount == 2 && rt.SizeInBytes > 0, $"admin: queue runtime properties (active {rt.ActiveMessageCount}, size {rt.SizeInBytes})");
        check((await Drain(client.CreateReceiver(Queue, new ServiceBusReceiverOptions { ReceiveMode = ServiceBusReceiveMode.ReceiveAndDelete }), 2)).Count == 2, "admin: the new queue delivers at once");

        QueueProperties props = await admin.GetQueueAsync(Queue);
        props.MaxDeliveryCount = 7;
        QueueProperties updated = await admin.UpdateQueueAsync(props);
        check(updated.MaxDeliveryCount == 7 && (await admin.GetQueueAsync(Queue)).Value.MaxDeliveryCount == 7, "admin: queue updated");
        var names = new List<string>();
        await foreach (var q in admin.GetQueuesAsync()) names.Add(q.Name);
        check(names.Contains(Queue) && names.Contains("dotnet-plain"), $"admin: queues listed ({string.Join(",", names)})");

        await admin.CreateTopicAsync(Topic);
        await admin.CreateSubscriptionAsync(new CreateSubscriptionOptions(Topic, "red"), new CreateRuleOptions("red", new SqlRuleFilter("color = 'red'")) { Action = new SqlRuleAction("SET seen = 'yes'") });
        await admin.CreateSubscriptionAsync(Topic, "all");
        await admin.CreateRuleAsync(Topic, "all", new CreateRuleOptions("by-subject", new CorrelationRuleFilter { Subject = "never" }));
        var redRules = await Rules(admin, "red");
        check(redRules.Count == 1 && redRules[0].Filter is SqlRuleFilter f && f.SqlExpression == "color = 'red'" && redRules[0].Action is SqlRuleAction a && a.SqlExpression == "SET seen = 'yes'", "admin: SQL rule with its action");
        var allRules = await Rules(admin, "all");
        check(allRules.Count == 2 && allRules[0].Name == "$Default" && allRules[0].Filter is TrueRuleFilter && allRules[1].Filter is CorrelationRuleFilter c && c.Subject == "never", "admin: $Default true filter and a correlation rule");
        check(await Fails<ArgumentException>(() => admin.CreateRuleAsync(Topic, "red", new CreateRuleOptions("broken", new SqlRuleFilter("color = = 'red'"))), "column 9"), "admin: a bad SQL filter is refused with its position");

        await using (var sender = client.CreateSender(Topic))
        {
            var red = new ServiceBusMessage("r");
            red.ApplicationProperties["color"] = "red";
            var blue = new ServiceBusMessage("b");
            blue.ApplicationProperties["color"] = "blue";
            await sender.SendMessagesAsync(new[] { red, blue });
        }
        SubscriptionRuntimeProperties allRt = await admin.GetSubscriptionRuntimePropertiesAsync(Topic, "all");
        check(allRt.ActiveMessageCount == 2, $"admin: subscription runtime properties ({allRt.ActiveMessageCount})");
        check((await admin.GetTopicRuntimePropertiesAsync(Topic)).Value.SubscriptionCount == 2, "admin: topic runtime properties");
        var fromRed = await Drain(client.CreateReceiver(Topic, "red", new ServiceBusReceiverOptions { ReceiveMode = ServiceBusReceiveMode.ReceiveAndDelete }), 1);
        check(fromRed.Count == 1 && fromRed[0].Body.ToString() == "r" && fromRed[0].ApplicationProperties.TryGetValue("seen", out var seen) && (string)seen == "yes",
            "admin: the SQL filter selects and the action sets a property");

        await admin.DeleteRuleAsync(Topic, "all", "by-subject");
        await admin.DeleteSubscriptionAsync(Topic, "all");
        check(!(await admin.SubscriptionExistsAsync(Topic, "all")).Value && (await admin.SubscriptionExistsAsync(Topic, "red")).Value, "admin: subscription deleted");
        await admin.DeleteTopicAsync(Topic);
        await admin.DeleteQueueAsync(Queue);
        check(!(await admin.TopicExistsAsync(Topic)).Value && !(await admin.QueueExistsAsync(Queue)).Value, "admin: topic and queue deleted");
        check(await Fails(() => admin.DeleteQueueAsync(Queue), ServiceBusFailureReason.MessagingEntityNotFound), "admin: deleting it again is MessagingEntityNotFound");
    }

    static async Task<List<RuleProperties>> Rules(ServiceBusAdministrationClient admin, string subscription)
    {
        var rules = new List<RuleProperties>();
        await foreach (var r in admin.GetRulesAsync(Topic, subscription)) rules.Add(r);
        return rules;
    }

    /** Receives until `count` messages came or 10 s passed (a hang guard), then closes the receiver. */
    static async Task<List<ServiceBusReceivedMessage>> Drain(ServiceBusReceiver receiver, int count)
    {
        var got = new List<ServiceBusReceivedMessage>();
        var deadline = DateTime.UtcNow.AddSeconds(10);
        while (got.Count < count && DateTime.UtcNow < deadline)
            got.AddRange(await receiver.ReceiveMessagesAsync(count - got.Count, TimeSpan.FromSeconds(2)));
        await receiver.DisposeAsync();
        return got;
    }

    static async Task<bool> Fails(Func<Task> call, ServiceBusFailureReason reason)
    {
        try
        {
            await call();
            return false;
        }
        catch (ServiceBusException e)
        {
            return e.Reason == reason;
        }
    }

    static async Task<bool> Fails<T>(Func<Task> call, string messagePart) where T : Exception
    {
        try
        {
            await call();
            return false;
        }
        catch (T e)
        {
            return e.Message.Contains(messagePart);
        }
    }
}
