// ServiceBusSessionProcessor with MaxConcurrentSessions 8 over 200 sessions: every session handled, each in order.
using Azure.Messaging.ServiceBus;

static class SessionScaleCheck
{
    public const string Queue = "dotnet-many-sessions";
    const int Sessions = 200;
    const int PerSession = 5;

    public static async Task Run(ServiceBusClient client, Action<bool, string> check)
    {
        await using (var sender = client.CreateSender(Queue))
        {
            var all = new List<ServiceBusMessage>();
            for (var i = 0; i < PerSession; i++)
                for (var s = 0; s < Sessions; s++)
                    all.Add(new ServiceBusMessage($"{i}") { SessionId = $"s{s}", MessageId = $"s{s}-{i}" });
            foreach (var chunk in all.Chunk(100)) await sender.SendMessagesAsync(chunk);
        }
        var seen = new Dictionary<string, List<int>>();
        var total = 0;
        var errors = new List<string>();
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using var processor = client.CreateSessionProcessor(Queue, new ServiceBusSessionProcessorOptions
        {
            AutoCompleteMessages = false, MaxConcurrentSessions = 8, SessionIdleTimeout = TimeSpan.FromSeconds(1),
        });
        processor.ProcessMessageAsync += async args =>
        {
            await args.CompleteMessageAsync(args.Message);
            lock (seen)
            {
                if (!seen.TryGetValue(args.SessionId, out var list)) seen[args.SessionId] = list = new List<int>();
                list.Add(int.Parse(args.Message.Body.ToString()));
                if (++total == Sessions * PerSession) done.TrySetResult();
            }
        };
        processor.ProcessErrorAsync += args =>
        {
            lock (errors) errors.Add($"{args.ErrorSource} {args.Exception.Message}");
            return Task.CompletedTask;
        };
        await processor.StartProcessingAsync();
        var finished = await Task.WhenAny(done.Task, Task.Delay(TimeSpan.FromMinutes(3)));
        await processor.StopProcessingAsync();
        foreach (var e in errors.Take(5)) Console.WriteLine($"session processor error: {e}");
        check(finished == done.Task, $"sessions: {Sessions} sessions x {PerSession} handled with MaxConcurrentSessions 8 ({total})");
        var inOrder = seen.Count == Sessions && seen.Values.All(l => l.SequenceEqual(Enumerable.Range(0, PerSession)));
        check(inOrder, $"sessions: each of {Sessions} sessions in order ({seen.Count} seen)");
        check(errors.Count == 0, $"sessions: no session processor errors ({errors.Count})");
    }
}
