// Drives the emulator with Azure.Messaging.ServiceBus: batch send, ServiceBusProcessor settlement,
// ServiceBusSessionProcessor in-order handling with session state, and the dead-letter queue; then the checks in
// PrefetchCheck.cs, TypedPropertiesCheck.cs and SessionScaleCheck.cs.
// Exits non-zero on the first failed check.
using Azure.Messaging.ServiceBus;

var connectionString = Environment.GetEnvironmentVariable("SB_CONNECTION")
    ?? throw new InvalidOperationException("SB_CONNECTION is not set");
const string PlainQueue = "dotnet-plain";
const string SessionQueue = "dotnet-sessions";
var timeout = TimeSpan.FromSeconds(30);
var failures = new List<string>();
void Check(bool ok, string what)
{
    Console.WriteLine($"{(ok ? "ok  " : "FAIL")} {what}");
    if (!ok) failures.Add(what);
}

await using var client = new ServiceBusClient(connectionString, new ServiceBusClientOptions
{
    RetryOptions = new ServiceBusRetryOptions { MaxRetries = 2, TryTimeout = TimeSpan.FromSeconds(10) },
});

await AdministrationCheck.Run(client, Check);

// 1. Batch send with typed application properties.
await using (var sender = client.CreateSender(PlainQueue))
{
    using var batch = await sender.CreateMessageBatchAsync();
    Check(batch.MaxSizeInBytes > 0 && batch.MaxSizeInBytes <= 256 * 1024, $"batch max size from the link ({batch.MaxSizeInBytes})");
    foreach (var body in new[] { "one", "two", "retry", "poison" })
    {
        var m = new ServiceBusMessage(body) { MessageId = $"id-{body}" };
        m.ApplicationProperties["long"] = 5_000_000_000L;
        m.ApplicationProperties["int"] = 7;
        m.ApplicationProperties["text"] = "t";
        Check(batch.TryAddMessage(m), $"batch accepts {body}");
    }
    await sender.SendMessagesAsync(batch);
}

// 2. ServiceBusProcessor: complete, abandon once then complete, dead-letter.
var handled = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
var completed = new List<string>();
var typesOk = true;
await using (var processor = client.CreateProcessor(PlainQueue, new ServiceBusProcessorOptions { AutoCompleteMessages = false, MaxConcurrentCalls = 1 }))
{
    processor.ProcessMessageAsync += async args =>
    {
        var msg = args.Message;
        var body = msg.Body.ToString();
        typesOk &= msg.ApplicationProperties["long"] is long l && l == 5_000_000_000L && msg.ApplicationProperties["int"] is int;
        if (body == "poison")
        {
            await args.DeadLetterMessageAsync(msg, "Poison", "cannot be handled");
        }
        else if (body == "retry" && msg.DeliveryCount == 1)
        {
            await args.AbandonMessageAsync(msg, new Dictionary<string, object> { ["attempt"] = 1 });
            return;
        }
        else
        {
            await args.CompleteMessageAsync(msg);
        }
        lock (completed)
        {
            completed.Add(body);
            if (completed.Count == 4) handled.TrySetResult();
        }
    };
    processor.ProcessErrorAsync += args =>
    {
        Console.WriteLine($"processor error: {args.ErrorSource} {args.Exception.Message}");
        return Task.CompletedTask;
    };
    await processor.StartProcessingAsync();
    var done = await Task.WhenAny(handled.Task, Task.Delay(timeout));
    await processor.StopProcessingAsync();
    Check(done == handled.Task, $"processor settled every message ({string.Join(",", completed)})");
    Check(typesOk, "application properties keep their AMQP types (long, int)");
}

// 3. ServiceBusSessionProcessor: three sessions, in order, with session state.
await using (var sender = client.CreateSender(SessionQueue))
{
    var messages = new List<ServiceBusMessage>();
    for (var i = 0; i < 3; i++)
        foreach (var s in new[] { "a", "b", "c" })
            messages.Add(new ServiceBusMessage($"{s}{i}") { SessionId = s });
    await sender.SendMessagesAsync(messages);
}
var seen = new Dictionary<string, List<string>>();
var sessionsDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
var total = 0;
await using (var sessionProcessor = client.CreateSessionProcessor(SessionQueue, new ServiceBusSessionProcessorOptions
{
    AutoCompleteMessages = false, MaxConcurrentSessions = 2, SessionIdleTimeout = TimeSpan.FromSeconds(1),
}))
{
    sessionProcessor.ProcessMessageAsync += async args =>
    {
        var state = await args.GetSessionStateAsync();
        var count = state is null ? 0 : int.Parse(state.ToString());
        await args.SetSessionStateAsync(new BinaryData((count + 1).ToString()));
        await args.CompleteMessageAsync(args.Message);
        lock (seen)
        {
            if (!seen.TryGetValue(args.SessionId, out var list)) seen[args.SessionId] = list = new List<string>();
            list.Add(args.Message.Body.ToString());
            if (++total == 9) sessionsDone.TrySetResult();
        }
    };
    sessionProcessor.ProcessErrorAsync += args =>
    {
        Console.WriteLine($"session processor error: {args.ErrorSource} {args.Exception}");
        return Task.CompletedTask;
    };
    await sessionProcessor.StartProcessingAsync();
    var done = await Task.WhenAny(sessionsDone.Task, Task.Delay(timeout));
    await sessionProcessor.StopProcessingAsync();
    Check(done == sessionsDone.Task, $"session processor handled all 9 messages ({total})");
    foreach (var s in new[] { "a", "b", "c" })
        Check(seen.TryGetValue(s, out var l) && l.SequenceEqual(new[] { $"{s}0", $"{s}1", $"{s}2" }), $"session {s} in order");
}
await using (var sessionReceiver = await client.AcceptSessionAsync(SessionQueue, "a"))
{
    var state = await sessionReceiver.GetSessionStateAsync();
    Check(state?.ToString() == "3", $"session state persisted ({state})");
}

// 4. Dead-letter queue.
await using (var dlq = client.CreateReceiver(PlainQueue, new ServiceBusReceiverOptions { SubQueue = SubQueue.DeadLetter }))
{
    var dead = await dlq.ReceiveMessageAsync(TimeSpan.FromSeconds(5));
    Check(dead is not null && dead.Body.ToString() == "poison", "dead-lettered message is in the DLQ");
    Check(dead?.DeadLetterReason == "Poison" && dead.DeadLetterErrorDescription == "cannot be handled", "dead-letter reason and description");
    // Service Bus sets DeadLetterSource only on messages auto-forwarded out of a dead-letter queue.
    Check(dead?.DeadLetterSource is null, $"no dead-letter source on a message read from the DLQ ({dead?.DeadLetterSource})");
    if (dead is not null) await dlq.CompleteMessageAsync(dead);
    var peeked = await dlq.PeekMessageAsync();
    Check(peeked is null, "DLQ empty after completing");
}

// 5. Checks kept in their own files.
await PrefetchCheck.Run(client, Check);
await TypedPropertiesCheck.Run(client, Check);
await SessionScaleCheck.Run(client, Check);

Console.WriteLine(failures.Count == 0 ? "PASS .NET compatibility check" : $"FAILED {failures.Count} check(s)");
return failures.Count == 0 ? 0 : 1;
