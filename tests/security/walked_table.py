"""Who may knock on which door: the permission table of every walked URL × every kind of visitor
(issue 21), asserted cell by cell by tests/security/test_walked_pages.py. A route added to
the URLconf fails that test until its rows are here (and in walked.REGISTRY).

A row is one URL and method ("route[which URL] METHOD", the URLs of walked.REGISTRY); its cells are
the answer each visitor gets (walked.VISITORS, in this order):

    HST the host of this club (so of its party night, and of the game tables opened for the party)
    OHS the host of another club      PH1 a phone at table 1 (the head table) of the night in play
    PH2 a phone at its table 2        PHN a phone at another night
    MEM a member, by their link       OMB a member of another club, by their link
    DIR the tournament's director     ODR the director of another tournament
    GRP the phone of group 1          OGR the phone of group 2 of the same tournament
    ST0 a phone holding seat 0 at each game table     ST1 a phone holding seat 1
    SCR a table screen (opened the screens' links, nothing else)
    OUT an outsider: logged in, with no club, night, tournament or table

A cell is the status answered, or LOG: the redirect to the log-in page (an account-only page, for a
browser that is not logged in). A GET answered is that page; a POST is sent empty, so an allowed
visitor gets what the view answers an empty form (400, the form again, a redirect with its message;
the director's dashboard again with the refusal in it, 400 or 409)
or, for a button that posts nothing, the button's effect (rolled back afterwards). Refused visitors
(403, 404, LOG) must leave the database as it was, every table of it.

Links that carry a secret (a join link, a screen's, a member's personal link, a check room, a
calendar's) are filled in with the real secret: whoever has the link may use it, by design, so
those rows allow everyone; a forged secret is refused (tests/security/test_future_links.py,
tests/games/test_join_links.py, …).
"""

PERMISSIONS = {
    #                                                    HST OHS PH1 PH2 PHN MEM OMB DIR ODR GRP OGR ST0 ST1 SCR OUT
    "home GET":                                         "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "alive GET":                                        "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "health GET":                                       "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "manifest GET":                                     "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "service_worker GET":                               "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "offline GET":                                      "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "javascript_catalog GET":                           "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "switch_language POST":                             "400 400 400 400 400 400 400 400 400 400 400 400 400 400 400",
    "tables:verifier GET":                              "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "login GET":                                        "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "login POST":                                       "400 400 400 400 400 400 400 400 400 400 400 400 400 400 400",
    "logout POST":                                      "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "admin/login/ GET":                                 "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "admin/login/ POST":                                "400 400 400 400 400 400 400 400 400 400 400 400 400 400 400",

    "live:connection_check GET":                        "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "live:connection_check_room GET":                   "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "live:connection_check_feed GET":                   "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "live:connection_check_ping POST":                  "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "live:connection_check_events GET":                 "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",

    "games:host_nights GET":                            "200 200 LOG LOG LOG LOG LOG 200 200 LOG LOG LOG LOG LOG 200",
    "games:night_new GET":                              "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "games:night_new POST":                             "400 400 400 400 400 400 400 400 400 400 400 400 400 400 400",
    "games:night_new[its party's night started] GET":   "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_new[its party's night started] POST":  "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_new[for a party] GET":                 "200 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_new[for a party] POST":                "400 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_shape POST":                           "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "games:join[the night's] GET":                      "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "games:join[table 1's] GET":                        "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "games:claim POST":                                 "400 403 400 400 403 403 403 403 403 403 403 403 403 403 403",
    "games:play GET":                                   "403 403 200 200 403 403 403 403 403 403 403 403 403 403 403",
    "games:tally POST":                                 "403 403 400 400 403 403 403 403 403 403 403 403 403 403 403",
    "games:undo POST":                                  "403 403 400 400 403 403 403 403 403 403 403 403 403 403 403",
    "games:table_start POST":                           "403 403 400 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:table_turn_over POST":                       "403 403 400 400 403 403 403 403 403 403 403 403 403 403 403",
    "games:table_roll_off_done POST":                   "403 403 400 400 403 403 403 403 403 403 403 403 403 403 403",
    "games:sheet GET":                                  "403 403 200 200 403 403 403 403 403 403 403 403 403 403 403",
    "games:not_me POST":                                "403 403 302 302 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_host GET":                             "200 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_codes GET":                            "200 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_correct_check POST":                    "400 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_correct POST":                          "400 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_players GET":                           "200 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_arrival POST":                          "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_arrival[between rounds] POST":          "403 302 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_leave POST":                            "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_leave[between rounds] POST":            "403 302 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_table GET":                            "200 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_undo POST":                             "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_release POST":                          "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_start POST":                            "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_resume POST":                           "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_reopen POST":                           "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_turn_over POST":                        "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_roll_off_done POST":                    "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_end POST":                              "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:host_prizes POST":                           "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "games:screen GET":                                 "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "games:prizes GET":                                 "200 403 200 200 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_events GET":                           "200 403 200 200 403 403 403 403 403 403 403 403 403 403 403",
    "games:night_events[the screen's] GET":             "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "games:player_events GET":                          "403 403 200 403 403 403 403 403 403 403 403 403 403 403 403",

    "tables:new GET":                                   "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:new POST":                                  "400 400 400 400 400 400 400 400 400 400 400 400 400 400 400",
    "tables:new[for a party] GET":                      "200 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "tables:new[for a party] POST":                     "400 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "tables:table[fill_or_bust] GET":                   "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:table[kismet] GET":                         "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:table[ninety_nine] GET":                    "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:claim POST":                                "400 400 400 400 400 400 400 400 400 400 400 400 400 400 400",
    "tables:not_me POST":                               "403 403 403 403 403 403 403 403 403 403 403 302 302 403 403",
    "tables:move[fill_or_bust] POST":                   "403 403 403 403 403 403 403 403 403 403 403 400 400 403 403",
    "tables:move[kismet] POST":                         "403 403 403 403 403 403 403 403 403 403 403 400 400 403 403",
    "tables:move[ninety_nine] POST":                    "403 403 403 403 403 403 403 403 403 403 403 400 400 403 403",
    "tables:here POST":                                 "204 204 204 204 204 204 204 204 204 204 204 204 204 204 204",
    "tables:back POST":                                 "403 403 403 403 403 403 403 403 403 403 403 409 409 403 403",
    "tables:state[fill_or_bust] GET":                   "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:state[kismet] GET":                         "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:state[ninety_nine] GET":                    "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:state[fill_or_bust seat 0] GET":            "403 403 403 403 403 403 403 403 403 403 403 200 403 403 403",
    "tables:state[kismet seat 0] GET":                  "403 403 403 403 403 403 403 403 403 403 403 200 403 403 403",
    "tables:state[ninety_nine seat 0] GET":             "403 403 403 403 403 403 403 403 403 403 403 200 403 403 403",
    "tables:start POST":                                "409 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "tables:to_bot POST":                               "400 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "tables:take_back POST":                            "409 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "tables:free POST":                                 "302 403 403 403 403 403 403 403 403 403 403 403 403 403 403",
    "tables:screen GET":                                "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:replay[in play] GET":                       "409 409 409 409 409 409 409 409 409 409 409 409 409 409 409",
    "tables:replay[over] GET":                          "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:check[in play] GET":                        "409 409 409 409 409 409 409 409 409 409 409 409 409 409 409",
    "tables:check[over] GET":                           "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:record[in play] GET":                       "409 409 409 409 409 409 409 409 409 409 409 409 409 409 409",
    "tables:record[over] GET":                          "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:events[fill_or_bust] GET":                  "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:events[kismet] GET":                        "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:events[ninety_nine] GET":                   "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tables:screen_events GET":                         "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",

    "tournaments:list GET":                             "200 200 LOG LOG LOG LOG LOG 200 200 LOG LOG LOG LOG LOG 200",
    "tournaments:new GET":                              "200 200 LOG LOG LOG LOG LOG 200 200 LOG LOG LOG LOG LOG 200",
    "tournaments:new POST":                             "400 400 LOG LOG LOG LOG LOG 400 400 LOG LOG LOG LOG LOG 400",
    "tournaments:dashboard GET":                        "403 403 LOG LOG LOG LOG LOG 200 403 LOG LOG LOG LOG LOG 403",
    "tournaments:register POST":                        "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:register_member POST":                 "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:check_in POST":                        "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:seed POST":                            "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:drop POST":                            "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:delete POST":                          "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:delete[not begun] POST":               "403 403 LOG LOG LOG LOG LOG 403 302 LOG LOG LOG LOG LOG 403",
    "tournaments:start POST":                           "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:practice POST":                        "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:pause POST":                           "403 403 LOG LOG LOG LOG LOG 400 403 LOG LOG LOG LOG LOG 403",
    "tournaments:resume POST":                          "403 403 LOG LOG LOG LOG LOG 400 403 LOG LOG LOG LOG LOG 403",
    "tournaments:end_now POST":                         "403 403 LOG LOG LOG LOG LOG 400 403 LOG LOG LOG LOG LOG 403",
    "tournaments:start_clock POST":                     "403 403 LOG LOG LOG LOG LOG 400 403 LOG LOG LOG LOG LOG 403",
    "tournaments:seat_to_bot POST":                     "403 403 LOG LOG LOG LOG LOG 400 403 LOG LOG LOG LOG LOG 403",
    "tournaments:extend POST":                          "403 403 LOG LOG LOG LOG LOG 400 403 LOG LOG LOG LOG LOG 403",
    "tournaments:decide POST":                          "403 403 LOG LOG LOG LOG LOG 409 403 LOG LOG LOG LOG LOG 403",
    "tournaments:codes GET":                            "403 403 LOG LOG LOG LOG LOG 200 403 LOG LOG LOG LOG LOG 403",
    "tournaments:results_csv GET":                      "403 403 LOG LOG LOG LOG LOG 200 403 LOG LOG LOG LOG LOG 403",
    "tournaments:director_group GET":                   "403 403 LOG LOG LOG LOG LOG 200 403 LOG LOG LOG LOG LOG 403",
    "tournaments:correct POST":                         "403 403 LOG LOG LOG LOG LOG 302 403 LOG LOG LOG LOG LOG 403",
    "tournaments:on_phones POST":                       "403 403 LOG LOG LOG LOG LOG 302 403 LOG LOG LOG LOG LOG 403",
    "tournaments:strike POST":                          "403 403 LOG LOG LOG LOG LOG 302 403 LOG LOG LOG LOG LOG 403",
    "tournaments:screen GET":                           "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "tournaments:group_join GET":                       "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "tournaments:group GET":                            "403 403 403 403 403 403 403 200 403 200 403 403 403 403 403",
    "tournaments:group_turn POST":                      "403 403 403 403 403 403 403 400 403 400 403 403 403 403 403",
    "tournaments:group_undo POST":                      "403 403 403 403 403 403 403 200 403 200 403 403 403 403 403",
    "tournaments:events GET":                           "403 403 403 403 403 403 403 200 403 200 200 403 403 403 403",
    "tournaments:events[the screen's] GET":             "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",

    "clubs:club_new GET":                               "200 200 LOG LOG LOG LOG LOG 200 200 LOG LOG LOG LOG LOG 200",
    "clubs:club_new POST":                              "400 400 LOG LOG LOG LOG LOG 400 400 LOG LOG LOG LOG LOG 400",
    "clubs:my_club GET":                                "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "clubs:my_rsvp POST":                               "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_sub_accept POST":                         "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_sub_decline POST":                        "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_swap_request POST":                       "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_swap_accept POST":                        "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_swap_decline POST":                       "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_claim POST":                              "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_blackouts POST":                          "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_language POST":                           "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:my_box_received POST":                       "302 302 302 302 302 302 302 302 302 302 302 302 302 302 302",
    "clubs:member_feed GET":                            "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "clubs:club_feed GET":                              "200 200 200 200 200 200 200 200 200 200 200 200 200 200 200",
    "clubs:club GET":                                   "200 404 404 404 404 200 404 404 404 404 404 404 404 404 404",
    "clubs:club_edit GET":                              "200 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:club_export GET":                            "200 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:box GET":                                    "200 404 404 404 404 200 404 404 404 404 404 404 404 404 404",
    "clubs:box_kit POST":                               "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:club_edit POST":                             "400 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:cohost_add POST":                            "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:cohost_remove POST":                         "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:roster GET":                                 "200 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:roster POST":                                "400 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_edit GET":                            "200 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_edit POST":                           "400 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_blackouts POST":                      "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_up POST":                             "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_down POST":                           "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_promote POST":                        "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_to_subs POST":                        "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_retire POST":                         "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_reinstate POST":                      "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_new_link POST":                       "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_pair POST":                           "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:member_split POST":                          "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:season_new GET":                             "200 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:season_new POST":                            "400 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:season GET":                                 "200 404 404 404 404 200 404 404 404 404 404 404 404 404 404",
    "clubs:season_plan POST":                           "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:standings GET":                              "200 404 404 404 404 200 404 404 404 404 404 404 404 404 404",
    "clubs:party_new GET":                              "200 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party_new POST":                             "400 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party GET":                                  "200 404 404 404 404 200 404 404 404 404 404 404 404 404 404",
    "clubs:party_edit GET":                             "200 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party_edit POST":                            "400 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party_invite_sub POST":                      "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party_counts POST":                          "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party_cancel POST":                          "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party_paid POST":                            "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",
    "clubs:party_box_received POST":                    "302 404 404 404 404 403 404 404 404 404 404 404 404 404 404",}


def who_knocks(row: str, visitors: tuple[str, ...]) -> list[str]:
    """The first of `visitors` (walked.VISITORS) the permission table lets in at `row` (a 2xx or a
    redirect), and an outsider: the two sides of a door."""
    cells = dict(zip(visitors, PERMISSIONS[row].split(), strict=True))
    let_in = next((visitor for visitor, cell in cells.items() if cell[0] in "23"), None)
    return [visitor for visitor in (let_in, "outsider") if visitor is not None]
