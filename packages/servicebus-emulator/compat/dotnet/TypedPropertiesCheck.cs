// propertiesToModify on abandon, defer and dead-letter keep their .NET types (int stays int, not uint).
using Azure.Messaging.ServiceBus;

static class TypedPropertiesCheck
{
    public const string Queue = "dotnet-typed";
    static readonly DateTime When = new(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc);

    static Dictionary<string, object> Props(string prefix) => new()
    {
        [$"{prefix}int"] = 7, [$"{prefix}long"] = 5_000_000_000L, [$"{prefix}double"] = 2.0, [$"{prefix}bool"] = true,
        [$"{prefix}string"] = "s", [$"{prefix}time"] = When,
    };

    static bool Typed(IReadOnlyDictionary<string, object>? p, string prefix) =>
        p is not null
        && p.TryGetValue($"{prefix}int", out var i) && i is int iv && iv == 7
        && p.TryGetValue($"{prefix}long", out var l) && l is long lv && lv == 5_000_000_000L
        && p.TryGetValue($"{prefix}double", out var d) && d is double dv && dv == 2.0
        && p.TryGetValue($"{prefix}bool", out var b) && b is bool bv && bv
        && p.TryGetValue($"{prefix}string", out var s) && s is string sv && sv == "s"
        && p.TryGetValue($"{prefix}time", out var t) && t is DateTime tv && tv.ToUniversalTime() == When;

    static string Describe(IReadOnlyDictionary<string, object>? p) =>
        p is null ? "none" : string.Join(", ", p.Select(kv => $"{kv.Key}:{kv.Value?.GetType().Name}"));

    public static async Task Run(ServiceBusClient client, Action<bool, string> check)
    {
        await using var sender = client.CreateSender(Queue);
        await using var receiver = client.CreateReceiver(Queue);
        await sender.SendMessageAsync(new ServiceBusMessage("typed") { MessageId = "typed-1" });
        var wait = TimeSpan.FromSeconds(10);

        var m = await receiver.ReceiveMessageAsync(wait);
        await receiver.AbandonMessageAsync(m, Props("a_"));
        var again = await receiver.ReceiveMessageAsync(wait);
        check(Typed(again?.ApplicationProperties, "a_"), $"typed propertiesToModify on abandon ({Describe(again?.ApplicationProperties)})");

        await receiver.DeferMessageAsync(again, Props("f_"));
        var deferred = await receiver.ReceiveDeferredMessageAsync(again!.SequenceNumber);
        check(Typed(deferred?.ApplicationProperties, "f_"), "typed propertiesToModify on defer");

        // A deferred message settles through $management: properties-to-modify travels in the request body.
        await receiver.DeadLetterMessageAsync(deferred, Props("d_"), "Typed", "typed properties");
        await using var dlq = client.CreateReceiver(Queue, new ServiceBusReceiverOptions { SubQueue = SubQueue.DeadLetter });
        var dead = await dlq.ReceiveMessageAsync(wait);
        check(Typed(dead?.ApplicationProperties, "d_") && Typed(dead?.ApplicationProperties, "a_"), "typed propertiesToModify on dead-letter");
        if (dead is not null) await dlq.CompleteMessageAsync(dead);

        await sender.SendMessageAsync(new ServiceBusMessage("typed-link") { MessageId = "typed-2" });
        var onLink = await receiver.ReceiveMessageAsync(wait);
        await receiver.DeadLetterMessageAsync(onLink, Props("l_"), "Typed", "on the link");
        var deadOnLink = await dlq.ReceiveMessageAsync(wait);
        check(Typed(deadOnLink?.ApplicationProperties, "l_"), "typed propertiesToModify on dead-letter over the receive link");
        if (deadOnLink is not null) await dlq.CompleteMessageAsync(deadOnLink);
    }
}
