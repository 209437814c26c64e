// The service's favicon: a ticket on the accent colour, small enough to inline. Served by the api
// function (the reference page links it), so no page of ours asks another host for an icon.
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#1d4ed8"/>' +
  '<path d="M6 10h20v4a2 2 0 0 0 0 4v4H6v-4a2 2 0 0 0 0-4z" fill="#fff"/>' +
  '<path d="M19 11v10" stroke="#1d4ed8" stroke-width="1.5" stroke-dasharray="2 1.5"/>' +
  "</svg>";
