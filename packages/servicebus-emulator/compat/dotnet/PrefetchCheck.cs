// ServiceBusProcessor with PrefetchCount > 0, started and stopped repeatedly. The processor sends its attach and
// its first flow back to back and keeps messages prefetched when it stops: every start must receive at once (no
// "receiver is aborted", no message left locked by the link that went away until its lock expires).
using Azure.Messaging.ServiceBus;

static class PrefetchCheck
{
    public const string Queue = "dotnet-prefetch";
    const int Rounds = 20;
    const int PerRound = 20;
    // Each start stops after this many completions, so up to PerRound - TakenPerRound + prefetch are left behind.
    const int TakenPerRound = 15;

    public static async Task Run(ServiceBusClient client, Action<bool, string> check)
    {
        // The queue's lock lasts 5 min; a round (well under a second here) is given 2 min, a bound a busy machine
        // stays far inside, while a message stranded under a dead link's lock still fails it.
        var roundTimeout = TimeSpan.FromMinutes(2);
        var completed = new HashSet<string>();
        var errors = new List<string>();
        var stalls = 0;
        await using var sender = client.CreateSender(Queue);
        for (var round = 0; round < Rounds; round++)
        {
            await sender.SendMessagesAsync(Enumerable.Range(0, PerRound).Select(i => new ServiceBusMessage($"r{round}-{i}") { MessageId = $"r{round}-{i}" }));
            var last = round == Rounds - 1;
            var target = last ? Rounds * PerRound : (round + 1) * TakenPerRound;
            var reached = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            await using var processor = client.CreateProcessor(Queue, new ServiceBusProcessorOptions
            {
                AutoCompleteMessages = false, MaxConcurrentCalls = 1, PrefetchCount = 10,
            });
            processor.ProcessMessageAsync += async args =>
            {
                lock (completed)
                {
                    if (completed.Count >= target) return; // left unsettled: the stop takes it with the link
                }
                await args.CompleteMessageAsync(args.Message);
                lock (completed)
                {
                    completed.Add(args.Message.MessageId);
                    if (completed.Count >= target) reached.TrySetResult();
                }
            };
            processor.ProcessErrorAsync += args =>
            {
                lock (errors) errors.Add($"round {round}: {args.ErrorSource} {args.Exception.Message}");
                return Task.CompletedTask;
            };
            await processor.StartProcessingAsync();
            var done = await Task.WhenAny(reached.Task, Task.Delay(roundTimeout));
            if (done != reached.Task) stalls++;
            await processor.StopProcessingAsync();
        }
        foreach (var e in errors.Take(5)) Console.WriteLine($"prefetch processor error: {e}");
        check(stalls == 0, $"prefetch: {Rounds} processor starts with PrefetchCount 10, none stalled ({stalls} stalled)");
        check(errors.Count == 0, $"prefetch: no processor errors ({errors.Count})");
        check(completed.Count == Rounds * PerRound, $"prefetch: every message completed once ({completed.Count} of {Rounds * PerRound})");
    }
}
