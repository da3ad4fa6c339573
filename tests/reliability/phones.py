"""A night driven over HTTP as the pages drive it, for the fault tests: the host starts a night on
the start form and starts rounds with the host page's button, phones scan the night's code, tap a
name and post taps as static/js/tally.js posts them (the form's fields, a key per tap, the CSRF
header, `Accept: application/json`), and follow their stream as a phone's EventSource does.

Nothing here touches the database: the server under test may run on a database the test process
does not use (a private PostgreSQL cluster).
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
# The join page's names (templates/games/join.html): a button per player, its id and name.
NAME_BUTTON = re.compile(r'name="player" value="(\d+)"><span class="player-name">([^<]+)</span>')

# How long a phone's request may take here: generous, so a busy machine is never taken for a fault.
REQUEST_SECONDS = 30.0


def first(pattern: str | re.Pattern[str], text: str) -> str:
    found = re.search(pattern, text)
    assert found is not None, f"{pattern!r} is not in:\n{text[:2000]}"
    return found.group(1)


def wait_for[T](what: str, check: Callable[[], T], timeout: float = 60.0, every: float = 0.1) -> T:
    """Poll `check` until it returns something true, and return that; fail after `timeout` seconds.
    The bound only ends a run whose condition never comes: a busy machine makes it later."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:.0f} s for {what}; last saw {result!r}")
        time.sleep(every)


def new_key() -> str:
    """A tap's key as tally.js makes it: 16 random bytes in hex."""
    return secrets.token_hex(16)


@dataclass
class HostNight:
    """A night started on the start page, and its host's browser."""

    host: httpx.Client
    code: str
    join: str  # the night's join path (its QR code)

    def start_round(self, number: int) -> httpx.Response:
        """The host page's "Start round N" (it names the round it starts)."""
        return self.host.post(f"/n/{self.code}/host/start/", data={"round": str(number)},
                              headers={"X-CSRFToken": self.host.cookies["csrftoken"], "HX-Request": "true"})


def start_night(url: str, names: list[str]) -> HostNight:
    host = httpx.Client(base_url=url, timeout=REQUEST_SECONDS)
    page = host.get("/nights/new/")
    answer = host.post("/nights/new/", data={"names": "\n".join(names), "buy_in": "5.00", "title": "Fault night",
                                             "csrfmiddlewaretoken": first(CSRF, page.text)})
    assert answer.status_code == 302, answer.text[:2000]
    code = answer.headers["location"].split("/")[2]
    host_page = host.get(f"/n/{code}/host/").text
    return HostNight(host=host, code=code, join=first(r'href="(?:http://[^/]+)?(/j/[^"]+/)"', host_page))


@dataclass
class Phone:
    """A player's phone: joined, its name tapped, seated at `table` in team `team`."""

    client: httpx.Client
    code: str
    player_id: int
    name: str
    table: int
    team: str
    answers: list[int] = field(default_factory=list)  # every status a tap of this phone got

    @property
    def csrf(self) -> str:
        return self.client.cookies["csrftoken"]

    def tap(self, key: str, points: int = 1) -> httpx.Response:
        """A +`points` for Us with `key`, as tally.js sends it (the form, then points and key)."""
        answer = self.client.post(
            f"/n/{self.code}/tally/",
            data={"csrfmiddlewaretoken": self.csrf, "table": str(self.table), "team": self.team,
                  "points": str(points), "key": key},
            headers={"X-CSRFToken": self.csrf, "Accept": "application/json"},
        )
        self.answers.append(answer.status_code)
        return answer

    def poll(self) -> httpx.Response:
        """The page's safety-net poll: its live region, re-fetched (htmx, every PHONE_POLL_SECONDS)."""
        return self.client.get(f"/n/{self.code}/play/", headers={"HX-Request": "true"})

    @property
    def stream_path(self) -> str:
        return f"/events/night/{self.code}/player/{self.player_id}/"

    def close(self) -> None:
        self.client.close()


def claim_phones(url: str, night: HostNight, count: int | None = None) -> list[Phone]:
    """A phone for each name on the night's list (the first `count`): it scans the night's code and
    taps the name, then reads its page for its table and team (from the scoring form: the round
    has started)."""
    with httpx.Client(base_url=url, timeout=REQUEST_SECONDS) as probe:
        names = NAME_BUTTON.findall(probe.get(night.join).text)
    phones = []
    for player_id, name in names[:count]:
        client = httpx.Client(base_url=url, timeout=REQUEST_SECONDS)
        page = client.get(night.join)
        claimed = client.post(f"/n/{night.code}/claim/",
                              data={"player": player_id, "csrfmiddlewaretoken": first(CSRF, page.text)})
        assert claimed.status_code == 302, claimed.text[:2000]
        play = client.get(f"/n/{night.code}/play/").text
        phones.append(Phone(client=client, code=night.code, player_id=int(player_id), name=name.strip(),
                            table=int(first(r'name="table" value="(\d+)"', play)),
                            team=first(r'name="team" value="([AB])" checked', play)))
    return phones


class Stream:
    """A phone's live connection, read in a thread: every event's id as it arrives.

    `last_event_id` is what the phone's EventSource would send on reconnecting."""

    def __init__(self, url: str, phone: Phone, *, last_event_id: int | None = None) -> None:
        self.ids: list[int] = []
        self.statuses: list[int] = []
        self.ended = threading.Event()
        self.error: BaseException | None = None
        headers = {"Accept": "text/event-stream"}
        if last_event_id is not None:
            headers["Last-Event-ID"] = str(last_event_id)
        # Its own connection (a browser's EventSource is one), with the phone's session cookies.
        self._client = httpx.Client(base_url=url, cookies=phone.client.cookies,
                                    timeout=httpx.Timeout(REQUEST_SECONDS, read=None))
        self._path, self._headers = phone.stream_path, headers
        self._closing = False
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        try:
            with self._client.stream("GET", self._path, headers=self._headers) as response:
                self.statuses.append(response.status_code)
                for line in response.iter_lines():  # heartbeats (comments) wake it too
                    if self._closing:
                        return
                    if line.startswith("id:"):
                        self.ids.append(int(line[3:].strip()))
        except BaseException as error:  # the test closed it, or the server went away
            if not self._closing:
                self.error = error
        finally:
            self.ended.set()

    def opened(self) -> bool:
        """Whether the server answered (a status, or the connection ended without one)."""
        return bool(self.statuses) or self.ended.is_set()

    @property
    def last_event_id(self) -> int | None:
        return self.ids[-1] if self.ids else None

    def close(self) -> None:
        self._closing = True
        self._client.close()
        self.ended.wait(10)


@dataclass
class TapLog:
    """What a tapping phone sent and what it was told."""

    acknowledged: dict[str, float] = field(default_factory=dict)  # key -> when its 2xx came (monotonic)
    unanswered: set[str] = field(default_factory=set)  # keys sent at least once without a 2xx or 4xx
    refused: dict[str, int] = field(default_factory=dict)  # key -> its 4xx
    statuses: Counter[int] = field(default_factory=Counter)
    no_answer: int = 0  # tries that got no HTTP answer at all (connection refused, reset, timed out)
    last_failure: float = 0.0  # when a try last failed (monotonic)
    failures: list[tuple[float, float, int, str]] = field(default_factory=list)  # (sent, answered, status, body): 5xx


class TappingPhone(threading.Thread):
    """A phone tapping +1 for Us as fast as it can (or at a player's pace), each tap with a new key, and each sent again with
    its key until it is answered, as tally.js does after a lost answer or a 5xx (tally.js gives up
    after five tries and tells the player; this one keeps trying, as the player would tap again).
    Once told to stop it finishes the tap under way: every key ends acknowledged or refused."""

    def __init__(self, phone: Phone, *, pause: float = 0.0) -> None:
        super().__init__(daemon=True)
        self.phone = phone
        self.pause = pause  # between one answered tap and the next: a player's pace
        self.log = TapLog()
        self.stopping = threading.Event()
        self._lock = threading.Lock()  # the test reads the log while this thread writes it

    def acknowledged(self) -> dict[str, float]:
        """The keys answered 2xx so far, and when."""
        with self._lock:
            return dict(self.log.acknowledged)

    def failures(self) -> list[tuple[float, float, int, str]]:
        with self._lock:
            return list(self.log.failures)

    def run(self) -> None:
        while not self.stopping.is_set():
            self.send_until_answered(new_key())
            self.stopping.wait(self.pause)

    def send_until_answered(self, key: str) -> None:
        tries = 0
        while True:
            sent = time.monotonic()
            try:
                answer = self.phone.tap(key)
                status: int | None = answer.status_code
            except httpx.TransportError:
                self.log.no_answer += 1
                status = None
            with self._lock:
                if status is not None:
                    self.log.statuses[status] += 1
                    if status < 400:
                        self.log.acknowledged[key] = time.monotonic()
                        return
                    if status < 500:
                        self.log.refused[key] = status
                        return
                    self.log.failures.append((sent, time.monotonic(), status, answer.text))
                self.log.unanswered.add(key)
                self.log.last_failure = time.monotonic()
            # tally.js's back-off between tries (0.5 s doubling); shorter here, the test waits on it.
            time.sleep(min(0.05 * 2**tries, 1.0))
            tries += 1

    def stop(self) -> None:
        self.stopping.set()


def stop_tapping(phones: list[TappingPhone]) -> None:
    """Every phone stops tapping, each once its tap under way is answered."""
    for tapping in phones:
        tapping.stop()
    for tapping in phones:
        tapping.join(timeout=60)


def tally_totals(phones: list[TappingPhone]) -> TapLog:
    """Every phone's log in one."""
    total = TapLog()
    for tapping in phones:
        total.acknowledged.update(tapping.log.acknowledged)
        total.unanswered |= tapping.log.unanswered
        total.refused.update(tapping.log.refused)
        total.statuses.update(tapping.log.statuses)
        total.no_answer += tapping.log.no_answer
        total.failures += tapping.log.failures
    return total


def reconnect(url: str, phone: Phone, last_event_id: int, timeout: float = 60.0) -> Stream:
    """A phone's stream opened again with `last_event_id`, tried until the server answers 200 (as
    the page's script retries a stream whose request failed, backing off)."""
    deadline = time.monotonic() + timeout
    tries = 0
    while True:
        stream = Stream(url, phone, last_event_id=last_event_id)
        wait_for("the stream's answer", stream.opened, timeout=timeout)
        if stream.statuses == [200]:
            return stream
        stream.close()
        if time.monotonic() > deadline:
            raise AssertionError(f"the stream never opened again: {stream.statuses}, {stream.error!r}")
        time.sleep(min(0.1 * 2**tries, 1.0))
        tries += 1


def replayed_after(url: str, phone: Phone, last_seen: int, owed: set[int], what: str) -> Stream:
    """A phone's stream that ended, opened again from `last_seen` as its EventSource does (again
    whenever it ends, from the last event it had) until it has received every event of `owed`.
    Fails, saying what the phone got, if one opening answers with a snapshot instead of the events
    it missed (more than the replay holds) or the events never all come."""
    stream = reconnect(url, phone, last_seen)
    asked_from = last_seen

    def has_them() -> bool:
        nonlocal stream, asked_from
        assert not stream.ids or stream.ids[0] <= asked_from + 1, (
            f"{what}: a snapshot (id {stream.ids[0]}) instead of the events after {asked_from}")
        if owed <= set(stream.ids):
            return True
        if stream.ended.is_set():  # it ended again before it had them all: the page opens it again
            asked_from = stream.last_event_id or asked_from
            stream = reconnect(url, phone, asked_from)
        return False

    try:
        wait_for(what, has_them)
    except AssertionError as failure:
        missing = sorted(owed - set(stream.ids))
        raise AssertionError(f"{failure}; asked from {asked_from}; {len(missing)} of {len(owed)} missing "
                             f"(first {missing[:5]}); got {len(stream.ids)} ids, first {stream.ids[:3]}, "
                             f"last {stream.ids[-3:]}; statuses {stream.statuses}, ended "
                             f"{stream.ended.is_set()}, {stream.error!r}") from failure
    return stream
