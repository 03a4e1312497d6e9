/// The OpenAPI document of `triggerkit serve`, served at `/openapi.json`; `docs/openapi.json`
/// is the same text (`triggerkit serve --print-openapi > docs/openapi.json`; a test checks
/// the two agree and that every route is described).
enum OpenAPIDocument {
    static let json = #"""
{
 "openapi": "3.1.0",
 "info": {
  "title": "TriggerKit serve",
  "version": "1.0.0",
  "description": "Apple's UserNotifications semantics as a multi-tenant HTTP service: notification requests (calendar, time interval, location triggers) per tenant and device, fixes in, events out (Server-Sent Events, webhooks). Every /v1 route needs `Authorization: Bearer <token>`; the token names the tenant. Errors are `{\"error\": {\"code\": ..., \"message\": ...}}` with the engine's codes (invalidTrigger, invalidRegion, notificationsNotAllowed, ...) or the server's (unauthorized, invalidJSON, payloadTooLarge, tooManyRequests, tooManyDevices, notFound, storeFailed, ...). Dates are ISO 8601 (UTC, `Z`)."
 },
 "servers": [
  {
   "url": "http://127.0.0.1:8080"
  }
 ],
 "security": [
  {
   "bearer": []
  }
 ],
 "components": {
  "securitySchemes": {
   "bearer": {
    "type": "http",
    "scheme": "bearer"
   }
  },
  "responses": {
   "Error": {
    "description": "An error",
    "content": {
     "application/json": {
      "schema": {
       "$ref": "#/components/schemas/Error"
      }
     }
    }
   }
  },
  "schemas": {
   "Error": {
    "type": "object",
    "required": [
     "error"
    ],
    "properties": {
     "error": {
      "type": "object",
      "required": [
       "code",
       "message"
      ],
      "properties": {
       "code": {
        "type": "string"
       },
       "message": {
        "type": "string"
       }
      }
     }
    }
   },
   "Request": {
    "type": "object",
    "required": [
     "identifier",
     "content"
    ],
    "description": "A notification request in the contract's JSON (the same as a line of a requests file): identifier, content {title, subtitle, body, sound, badge, categoryIdentifier, ...}, trigger {type: calendar|timeInterval|location|immediate, ...}, optional device and addedAt.",
    "properties": {
     "identifier": {
      "type": "string"
     },
     "content": {
      "type": "object"
     },
     "trigger": {
      "type": "object"
     },
     "device": {
      "type": "string"
     },
     "addedAt": {
      "type": "string",
      "format": "date-time"
     }
    }
   },
   "Event": {
    "type": "object",
    "required": [
     "identifier",
     "date",
     "trigger",
     "presentation",
     "eventId"
    ],
    "description": "One delivery: the same object as a line of `triggerkit run`'s output.",
    "properties": {
     "identifier": {
      "type": "string"
     },
     "date": {
      "type": "string",
      "format": "date-time"
     },
     "trigger": {
      "type": "string",
      "enum": [
       "calendar",
       "timeInterval",
       "location",
       "immediate"
      ]
     },
     "event": {
      "type": "string",
      "enum": [
       "enter",
       "exit"
      ]
     },
     "device": {
      "type": "string"
     },
     "region": {
      "type": "string"
     },
     "presentation": {
      "type": "array",
      "items": {
       "type": "string"
      }
     },
     "coalesced": {
      "type": "integer"
     },
     "eventId": {
      "type": "string",
      "pattern": "^[0-9a-f]{32}$"
     }
    }
   },
   "Settings": {
    "type": "object",
    "properties": {
     "authorizationStatus": {
      "type": "string",
      "enum": [
       "notDetermined",
       "denied",
       "authorized",
       "provisional",
       "ephemeral"
      ]
     }
    },
    "additionalProperties": true
   },
   "Category": {
    "type": "object",
    "required": [
     "identifier"
    ],
    "properties": {
     "identifier": {
      "type": "string"
     },
     "actions": {
      "type": "array",
      "items": {
       "type": "object",
       "required": [
        "identifier"
       ],
       "properties": {
        "identifier": {
         "type": "string"
        },
        "title": {
         "type": "string"
        },
        "options": {
         "type": "array",
         "items": {
          "type": "string",
          "enum": [
           "foreground",
           "destructive",
           "authenticationRequired"
          ]
         }
        },
        "effect": {
         "description": "\"none\", \"removeRequest\" or {\"snooze\": seconds}"
        }
       }
      }
     },
     "dismissEffect": {}
    }
   }
  }
 },
 "paths": {
  "/healthz": {
   "get": {
    "summary": "Liveness",
    "security": [],
    "responses": {
     "200": {
      "description": "OK",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     }
    }
   }
  },
  "/metrics": {
   "get": {
    "summary": "Prometheus metrics (text exposition format)",
    "security": [],
    "responses": {
     "200": {
      "description": "Metrics",
      "content": {
       "text/plain": {
        "schema": {
         "type": "string"
        }
       }
      }
     }
    }
   }
  },
  "/openapi.json": {
   "get": {
    "summary": "This document",
    "security": [],
    "responses": {
     "200": {
      "description": "OpenAPI document",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     }
    }
   }
  },
  "/v1/requests": {
   "post": {
    "summary": "Add a request, or replace the one with the same identifier (its trigger state starts afresh); a JSON array adds several in one step, each with its own result",
    "responses": {
     "201": {
      "description": "Added",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "identifier": {
           "type": "string"
          },
          "replaced": {
           "type": "boolean"
          },
          "warnings": {
           "type": "array",
           "items": {
            "type": "string"
           }
          }
         }
        }
       }
      }
     },
     "200": {
      "description": "Replaced; or, for an array, each request's result",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "identifier": {
           "type": "string"
          },
          "replaced": {
           "type": "boolean"
          },
          "warnings": {
           "type": "array",
           "items": {
            "type": "string"
           }
          },
          "accepted": {
           "type": "integer"
          },
          "rejected": {
           "type": "integer"
          },
          "results": {
           "type": "array",
           "items": {
            "type": "object",
            "properties": {
             "index": {
              "type": "integer"
             },
             "identifier": {
              "type": "string"
             },
             "status": {
              "type": "integer"
             },
             "warnings": {
              "type": "array",
              "items": {
               "type": "string"
              }
             },
             "error": {
              "type": "object"
             }
            }
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "403": {
      "$ref": "#/components/responses/Error"
     },
     "422": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "oneOf": [
         {
          "$ref": "#/components/schemas/Request"
         },
         {
          "type": "array",
          "items": {
           "$ref": "#/components/schemas/Request"
          }
         }
        ]
       }
      }
     }
    }
   },
   "get": {
    "summary": "Pending requests, in the order they were added",
    "responses": {
     "200": {
      "description": "Requests",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "requests": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Request"
           }
          }
         }
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "device",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "Only what this device sees: its own and the shared ones."
     }
    ]
   }
  },
  "/v1/requests/{id}": {
   "get": {
    "summary": "One request",
    "responses": {
     "200": {
      "description": "The request",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Request"
        }
       }
      }
     },
     "404": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "Request identifier (percent-encoded)."
     }
    ]
   },
   "delete": {
    "summary": "Remove a request; its triggers stop at once",
    "responses": {
     "204": {
      "description": "Removed"
     },
     "404": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "Request identifier (percent-encoded)."
     }
    ]
   }
  },
  "/v1/requests/{id}/next": {
   "get": {
    "summary": "The next date the request's time-based trigger fires (null: none)",
    "responses": {
     "200": {
      "description": "Next date",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "identifier": {
           "type": "string"
          },
          "next": {
           "type": [
            "string",
            "null"
           ],
           "format": "date-time"
          }
         }
        }
       }
      }
     },
     "404": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "Request identifier (percent-encoded)."
     }
    ]
   }
  },
  "/v1/upcoming": {
   "get": {
    "summary": "The soonest time-based fires across all requests, merged",
    "responses": {
     "200": {
      "description": "Fires",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "fires": {
           "type": "array",
           "items": {
            "type": "object",
            "properties": {
             "identifier": {
              "type": "string"
             },
             "device": {
              "type": "string"
             },
             "date": {
              "type": "string",
              "format": "date-time"
             }
            }
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "limit",
      "in": "query",
      "schema": {
       "type": "integer",
       "minimum": 1,
       "maximum": 100000,
       "default": 10
      }
     },
     {
      "name": "device",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "Only what this device sees: its own and the shared ones."
     }
    ]
   }
  },
  "/v1/delivered": {
   "get": {
    "summary": "Delivered notifications still in the history (bounded per device)",
    "responses": {
     "200": {
      "description": "Delivered",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "delivered": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Event"
           }
          }
         }
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "device",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "Only what this device sees: its own and the shared ones."
     }
    ]
   },
   "delete": {
    "summary": "Empty the delivered history",
    "responses": {
     "204": {
      "description": "Emptied"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/v1/delivered/{id}": {
   "delete": {
    "summary": "Remove the deliveries of one request",
    "responses": {
     "204": {
      "description": "Removed"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "id",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      },
      "description": "Request identifier (percent-encoded)."
     }
    ]
   }
  },
  "/v1/devices/{device}/settings": {
   "get": {
    "summary": "A device's notification settings",
    "responses": {
     "200": {
      "description": "Settings",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Settings"
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "device",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ]
   },
   "put": {
    "summary": "Change a device's notification settings from now on",
    "responses": {
     "200": {
      "description": "Settings",
      "content": {
       "application/json": {
        "schema": {
         "$ref": "#/components/schemas/Settings"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "422": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "device",
      "in": "path",
      "required": true,
      "schema": {
       "type": "string"
      }
     }
    ],
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "$ref": "#/components/schemas/Settings"
       }
      }
     }
    }
   }
  },
  "/v1/categories": {
   "get": {
    "summary": "Registered categories",
    "responses": {
     "200": {
      "description": "Categories",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "categories": {
           "type": "array",
           "items": {
            "$ref": "#/components/schemas/Category"
           }
          }
         }
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    }
   },
   "put": {
    "summary": "Replace the registered categories",
    "responses": {
     "200": {
      "description": "Categories",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "422": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "array",
        "items": {
         "$ref": "#/components/schemas/Category"
        }
       }
      }
     }
    }
   }
  },
  "/v1/responses": {
   "post": {
    "summary": "A user's response to a delivered notification: the action's effect (remove, snooze) is applied",
    "responses": {
     "200": {
      "description": "Outcome",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "identifier": {
           "type": "string"
          },
          "action": {
           "type": "string"
          },
          "device": {
           "type": "string"
          },
          "effect": {},
          "applied": {
           "type": "boolean"
          },
          "warnings": {
           "type": "array",
           "items": {
            "type": "string"
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "422": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "identifier",
         "action"
        ],
        "properties": {
         "identifier": {
          "type": "string"
         },
         "action": {
          "type": "string",
          "description": "An action identifier, or \"default\" / \"dismiss\""
         },
         "device": {
          "type": "string"
         }
        }
       }
      }
     }
    }
   }
  },
  "/v1/fixes": {
   "post": {
    "summary": "Fixes: one JSON object per line (NDJSON), as `triggerkit run` reads them; a batch is evaluated in order of t; per-line errors, and the lines of stale fixes (older than their device's latest: accepted, changed nothing)",
    "responses": {
     "200": {
      "description": "Result",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "accepted": {
           "type": "integer"
          },
          "rejected": {
           "type": "integer"
          },
          "errors": {
           "type": "array",
           "items": {
            "type": "object",
            "properties": {
             "line": {
              "type": "integer"
             },
             "code": {
              "type": "string"
             },
             "message": {
              "type": "string"
             }
            }
           }
          },
          "stale": {
           "type": "array",
           "items": {
            "type": "integer"
           }
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/x-ndjson": {
       "schema": {
        "type": "string"
       }
      },
      "text/plain": {
       "schema": {
        "type": "string"
       }
      }
     },
     "description": "{\"device\": \"d1\", \"t\": \"2026-11-21T09:00:00Z\", \"lat\": 40.7, \"lon\": -73.9, \"acc\": 8.5} per line"
    }
   }
  },
  "/v1/clock": {
   "post": {
    "summary": "--clock stream only: move the tenant's clock (time fires due by then are delivered)",
    "responses": {
     "200": {
      "description": "The clock",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "now": {
           "type": "string",
           "format": "date-time"
          }
         }
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "409": {
      "$ref": "#/components/responses/Error"
     },
     "422": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "requestBody": {
     "required": true,
     "content": {
      "application/json": {
       "schema": {
        "type": "object",
        "required": [
         "t"
        ],
        "properties": {
         "t": {
          "description": "ISO 8601 date or seconds since 1970"
         }
        }
       }
      }
     }
    }
   }
  },
  "/v1/events": {
   "get": {
    "summary": "Events as Server-Sent Events (`id` = event number, `event: delivered`, `data` = Event JSON); resume with Last-Event-ID",
    "responses": {
     "200": {
      "description": "Event stream",
      "content": {
       "text/event-stream": {
        "schema": {
         "type": "string"
        }
       }
      }
     },
     "400": {
      "$ref": "#/components/responses/Error"
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    },
    "parameters": [
     {
      "name": "device",
      "in": "query",
      "required": false,
      "schema": {
       "type": "string"
      },
      "description": "Only what this device sees: its own and the shared ones."
     },
     {
      "name": "Last-Event-ID",
      "in": "header",
      "schema": {
       "type": "integer",
       "minimum": 0
      }
     },
     {
      "name": "after",
      "in": "query",
      "schema": {
       "type": "integer",
       "minimum": 0
      },
      "description": "The same as Last-Event-ID"
     },
     {
      "name": "from",
      "in": "query",
      "schema": {
       "type": "string",
       "enum": [
        "now"
       ]
      },
      "description": "Start after the newest stored event"
     },
     {
      "name": "limit",
      "in": "query",
      "schema": {
       "type": "integer",
       "minimum": 1
      },
      "description": "End the stream after this many events"
     },
     {
      "name": "follow",
      "in": "query",
      "schema": {
       "type": "string",
       "enum": [
        "true",
        "false"
       ]
      },
      "description": "false: end after the stored events"
     }
    ]
   }
  },
  "/v1/stats": {
   "get": {
    "summary": "The tenant's counters",
    "responses": {
     "200": {
      "description": "Counters",
      "content": {
       "application/json": {
        "schema": {
         "type": "object"
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  },
  "/v1/webhooks/dead": {
   "get": {
    "summary": "Webhook batches given up after every retry",
    "responses": {
     "200": {
      "description": "Dead letters",
      "content": {
       "application/json": {
        "schema": {
         "type": "object",
         "properties": {
          "dead": {
           "type": "array",
           "items": {
            "type": "object"
           }
          }
         }
        }
       }
      }
     },
     "401": {
      "$ref": "#/components/responses/Error"
     },
     "413": {
      "$ref": "#/components/responses/Error"
     },
     "429": {
      "$ref": "#/components/responses/Error"
     },
     "503": {
      "$ref": "#/components/responses/Error"
     }
    }
   }
  }
 }
}
"""#
}
